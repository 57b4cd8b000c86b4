"""Bots: players that decide from one seat's view (R23). Import-light: nothing is made or registered here."""

from catsack.bots.base import Bot, make_bot

__all__ = ["Bot", "make_bot"]

"""Advice: what a search or the learned expert thinks of a seat's decision, and sentences that explain it.

Above the bots and the learned agents it asks (:mod:`catsack.learn`); the command line, the terminal and the
server read it. Import-light: each module is imported where it is used.
"""

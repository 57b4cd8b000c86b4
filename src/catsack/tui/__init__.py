"""Terminal play (``catsack play``): a Textual application over a controller that owns the game.

The widgets only draw text computed from the human seat's :class:`~catsack.view.View`
(R23); the game itself lives in :class:`catsack.tui.controller.PlayController`.
Textual is imported only by :mod:`catsack.tui.app`, so the controller, the
renderers and the storage helper work without it.
"""

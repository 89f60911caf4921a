"""widgets: the timeline player, a Jupyter widget that also exports to a standalone HTML page.

No PyTorch counterpart. See `tensortrace.widgets.player` for the stable export API
(`standalone_html`, `TimelinePlayer.to_html`) the slides use.
"""

from tensortrace.widgets.player import TimelinePlayer, standalone_html, view_text

__all__ = ["TimelinePlayer", "standalone_html", "view_text"]

"""Grouped bar charts as plain SVG text (no plotting library in the venv).

One figure = panels stacked top to bottom, each with its own y scale (batch 8
takes about 8x batch 1; a shared scale would flatten one panel). In a panel,
one group of bars per x label, one bar per series, the value written on top
of each bar; a missing value (a failed measurement) is marked "err".
"""
import math
from xml.sax.saxutils import escape

WIDTH = 820
PANEL_HEIGHT = 300
MARGIN_LEFT, MARGIN_RIGHT = 72, 16
MARGIN_TOP = 70      # title and legend
PANEL_GAP = 40       # room for the x labels and the next panel's title
AXIS_TITLE_ROOM = 34
FONT = "font-family='sans-serif'"


def nice_ticks(top, count=5):
    """0, step, 2 step, ... reaching at least top; step is 1, 2 or 5 x 10^k."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    ticks = [0.0]
    while ticks[-1] < top:
        ticks.append(ticks[-1] + step)
    return ticks


def format_value(value):
    """Three significant figures, no exponent: 0.0123, 1.23, 12.3, 123."""
    if value >= 100:
        return f"{value:.0f}"
    digits = max(0, 2 - math.floor(math.log10(value))) if value > 0 else 0
    return f"{value:.{digits}f}"


def _panel(out, top, title, group_labels, series, values, y_title, x_title):
    """values[g][s]: bar of series s in group g, or None."""
    plot_left, plot_right = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    plot_top, plot_bottom = top + 24, top + PANEL_HEIGHT - AXIS_TITLE_ROOM
    present = [v for row in values for v in row if v is not None]
    ticks = nice_ticks(max(present) if present else 1.0)
    y_max = ticks[-1]

    def y(value):
        return plot_bottom - (plot_bottom - plot_top) * value / y_max

    out.append(f"<text x='{plot_left}' y='{top + 14}' {FONT} font-size='14' "
               f"font-weight='bold'>{escape(title)}</text>")
    for tick in ticks:
        ty = y(tick)
        out.append(f"<line x1='{plot_left}' x2='{plot_right}' y1='{ty:.1f}' y2='{ty:.1f}' "
                   "stroke='#e3e3e3'/>")
        out.append(f"<text x='{plot_left - 6}' y='{ty + 4:.1f}' {FONT} font-size='11' "
                   f"text-anchor='end'>{round(tick, 9):g}</text>")
    out.append(f"<line x1='{plot_left}' x2='{plot_left}' y1='{plot_top}' y2='{plot_bottom}' "
               "stroke='#333'/>")
    out.append(f"<line x1='{plot_left}' x2='{plot_right}' y1='{plot_bottom}' y2='{plot_bottom}' "
               "stroke='#333'/>")
    middle = (plot_top + plot_bottom) / 2
    out.append(f"<text x='16' y='{middle:.1f}' {FONT} font-size='12' text-anchor='middle' "
               f"transform='rotate(-90 16 {middle:.1f})'>{escape(y_title)}</text>")
    out.append(f"<text x='{(plot_left + plot_right) / 2:.1f}' y='{plot_bottom + 32}' {FONT} "
               f"font-size='12' text-anchor='middle'>{escape(x_title)}</text>")

    group_width = (plot_right - plot_left) / max(1, len(group_labels))
    bar_width = min(44.0, group_width * 0.8 / max(1, len(series)))
    # Horizontal value labels need about 6 px per character at 10 px; else turn them.
    vertical_labels = bar_width < 30
    for g, label in enumerate(group_labels):
        group_left = plot_left + g * group_width + (group_width - bar_width * len(series)) / 2
        out.append(f"<text x='{plot_left + (g + 0.5) * group_width:.1f}' y='{plot_bottom + 16}' "
                   f"{FONT} font-size='12' text-anchor='middle'>{escape(label)}</text>")
        for s, (_, color) in enumerate(series):
            x = group_left + s * bar_width
            center = x + bar_width / 2
            value = values[g][s]
            if value is None:
                out.append(f"<text x='{center:.1f}' y='{plot_bottom - 4}' {FONT} font-size='10' "
                           f"text-anchor='middle' fill='#b00'>err</text>")
                continue
            bar_top = y(value)
            out.append(f"<rect x='{x + 1:.1f}' y='{bar_top:.1f}' width='{bar_width - 2:.1f}' "
                       f"height='{plot_bottom - bar_top:.1f}' fill='{color}'>"
                       f"<title>{escape(series[s][0])} {label}: {format_value(value)}</title></rect>")
            text = format_value(value)
            if vertical_labels:
                out.append(f"<text x='{center + 3.5:.1f}' y='{bar_top - 4:.1f}' {FONT} "
                           f"font-size='10' transform='rotate(-90 {center + 3.5:.1f} "
                           f"{bar_top - 4:.1f})'>{text}</text>")
            else:
                out.append(f"<text x='{center:.1f}' y='{bar_top - 4:.1f}' {FONT} font-size='10' "
                           f"text-anchor='middle'>{text}</text>")


def grouped_bars_svg(title, panels, group_labels, series, y_title, x_title):
    """panels: [(panel title, values[group][series])]; series: [(label, color)]."""
    height = MARGIN_TOP + len(panels) * (PANEL_HEIGHT + PANEL_GAP)
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='{height}' "
           f"viewBox='0 0 {WIDTH} {height}'>",
           f"<rect width='{WIDTH}' height='{height}' fill='white'/>",
           f"<text x='{WIDTH / 2}' y='24' {FONT} font-size='16' font-weight='bold' "
           f"text-anchor='middle'>{escape(title)}</text>"]
    legend_x = MARGIN_LEFT
    for label, color in series:
        out.append(f"<rect x='{legend_x}' y='38' width='14' height='14' fill='{color}'/>")
        out.append(f"<text x='{legend_x + 20}' y='50' {FONT} font-size='12'>{escape(label)}</text>")
        legend_x += 30 + 8 * len(label)
    for index, (panel_title, values) in enumerate(panels):
        _panel(out, MARGIN_TOP + index * (PANEL_HEIGHT + PANEL_GAP), panel_title, group_labels,
               series, values, y_title, x_title)
    out.append("</svg>")
    return "\n".join(out) + "\n"

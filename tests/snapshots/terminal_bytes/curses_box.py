"""A curses program: a box, colours, the cursor moved, the alternate screen."""

import curses
import time


def main(w):
    curses.start_color()
    curses.use_default_colors()
    curses.init_pair(1, curses.COLOR_CYAN, -1)
    curses.init_pair(2, curses.COLOR_YELLOW, curses.COLOR_BLUE)
    w.clear()
    box = curses.newwin(7, 30, 2, 4)
    box.attron(curses.color_pair(1))
    box.box()
    box.attroff(curses.color_pair(1))
    box.addstr(0, 2, " jobs-tui ", curses.A_BOLD)
    box.addstr(2, 3, "status: ", curses.A_DIM)
    box.addstr("running", curses.color_pair(2) | curses.A_BOLD)
    box.addstr(4, 3, "press q to quit", curses.A_UNDERLINE)
    w.refresh()
    box.refresh()
    w.move(10, 6)
    w.addstr("cursor here")
    w.move(10, 17)
    w.refresh()
    time.sleep(0.3)


curses.wrapper(main)

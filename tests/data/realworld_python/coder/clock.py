from datetime import datetime


def current_datetime():
    now = datetime.now().strftime("%A, %B %d, %Y - %I:%M %p")
    return "For the current query: the date and time are %s." % now

"""A classifier told yesterday's and last week's dates: a clock moved by a timedelta and formatted as
a date changes once a day, not on every request."""
from datetime import datetime, timedelta

from openai import OpenAI


def classify(client: OpenAI, text):
    yesterday = (datetime.now() - timedelta(days=1)).strftime("%Y-%m-%d")
    week_ago = (datetime.now() - timedelta(days=7)).strftime("%Y-%m-%d")
    system = f"""Yesterday was {yesterday} and a week ago was {week_ago}.
You sort the user's message into past, recent or upcoming. Answer with one of the three words alone on
the first line, then one sentence quoting the part of the message with the date or the time word that
decided it. Relative words such as last night, this morning or next Tuesday count from today. When the
message names no time at all, answer upcoming and say that no date was given."""
    return client.chat.completions.create(
        model="gpt-4.1", messages=[{"role": "system", "content": system}, {"role": "user", "content": text}])

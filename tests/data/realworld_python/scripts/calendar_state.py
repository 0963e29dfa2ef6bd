"""The simulation's calendar: today's date, fixed when the module is imported
unless the environment pins it for reproducible runs."""
import os
from datetime import date

TODAY: date = date.fromisoformat(os.environ["SIM_TODAY"]) if os.environ.get("SIM_TODAY") else date.today()

"""A system prompt that lists the installed packages, shuffled on every call."""
import random
from openai import OpenAI

client = OpenAI()


def plan(task: str) -> str:
    packages = ["numpy", "pandas", "scikit-learn", "xgboost", "lightgbm", "torch", "timm"]
    random.shuffle(packages)
    listing = ", ".join(f"`{p}`" for p in packages)
    system = (f"You can use these packages: {listing}. Feel free to use any other package, all are installed. "
              "Write one complete Python script, print the validation metric, never read the test labels, keep the "
              "run under an hour on one GPU, save predictions to submission.csv and explain your plan in at most "
              "five sentences before the code, with no other commentary after it.")
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "system", "content": system},
                                                                    {"role": "user", "content": task}])

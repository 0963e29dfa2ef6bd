"""Writes a batch file: one judging request per question of the dataset."""
import json

judge_prompt = """Here is the question:
{query}

Compare the two answers below on comprehensiveness, empowerment and depth, explain your choice for
each criterion, then name the overall winner. Judge only what the answers say, not their length or
their style, and do not let the order in which they are shown sway you.

**Answer 1:**
{answer1}

**Answer 2:**
{answer2}

Reply with a JSON object with one key per criterion ("Comprehensiveness", "Empowerment", "Depth")
and "Overall", each an object with "Winner" ("Answer 1" or "Answer 2") and "Explanation"."""

if __name__ == "__main__":
    with open("dataset.json") as f:
        questions = json.load(f)
    with open("batch.jsonl", "w") as out:
        for i in range(len(questions)):
            row = questions[i]
            body = {
                "model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": judge_prompt.format(
                    query=row["question"], answer1=row["ours"], answer2=row["theirs"])}],
            }
            out.write(json.dumps({"custom_id": str(i), "body": body}) + "\n")

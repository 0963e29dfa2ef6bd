import json

from rerank.saved import DEFAULT_PROGRAM


class FactFilter:
    def __init__(self, config):
        self.input_template = "[[ ## question ## ]]\n{question}\n\n[[ ## facts ## ]]\n{facts}\n\nRespond with the facts to keep."
        self.output_template = "[[ ## kept ## ]]\n{kept}"
        self.messages = self.make_template(config.program_path)

    def make_template(self, program_path):
        if program_path is not None:
            saved = json.load(open(program_path))
        else:
            saved = DEFAULT_PROGRAM
        messages = [{"role": "system", "content": saved["system"]}]
        for demo in saved["demos"]:
            messages.append({"role": "user", "content": self.input_template.format(question=demo["question"], facts=demo["facts"])})
            messages.append({"role": "assistant", "content": self.output_template.format(kept=demo["kept"])})
        return messages

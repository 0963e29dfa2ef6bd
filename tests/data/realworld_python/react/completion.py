import openai

from react.prompts import REACT


class CompletionAgent:
    def predict(self, prompt):
        response = openai.Completion.create(model="gpt-3.5-turbo-instruct", prompt=prompt, max_tokens=512)
        return response["choices"][0]["text"]

    def step(self, apis, task):
        api_list = ""
        for api in apis:
            api_list += f"{api['name']}: {api['description']}\n"
        prompt = REACT.replace("{api_list}", api_list).replace("{task}", task)
        return self.predict(prompt)

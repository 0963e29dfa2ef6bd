from jinja2 import Environment, FileSystemLoader

from layers.paths import template_dir


class LayerOne:
    def step(self, messages, llm):
        env = Environment(loader=FileSystemLoader(template_dir()))
        text = env.get_template("layer_instructions.md").render(data="\n".join(m.text for m in messages))
        return llm.create([{"role": "user", "content": text}])

"""An agent mixin that registers the configured tools; its base class sends self._tools."""


class RAGAgentMixin:
    def __init__(self, config, registry):
        self.config = config
        self.tool_registry = registry
        self._tools = []

    def _register_tools(self):
        for tool_name in set(self.config.rag_tools):
            tool = self.tool_registry.create_tool_instance(tool_name)
            if tool is not None:
                self._tools.append(tool)

    def _register_sorted_tools(self):
        for tool_name in sorted(set(self.config.rag_tools)):
            self._tools.append(self.tool_registry.create_tool_instance(tool_name))

    def _register_listed_tools(self):
        for tool_name in self.config.rag_tools:
            self._tools.append(self.tool_registry.create_tool_instance(tool_name))

"""``optional-include``: include a file when it exists, else say it is missing.

The performance page includes ``benchmarks/README.md`` (rendered with
MyST), which is written by the benchmark suite; a checkout without it
still builds.
"""

from pathlib import Path

from docutils import nodes
from sphinx.directives.other import Include


class OptionalInclude(Include):
    def run(self):
        _, filename = self.env.relfn2path(self.arguments[0])
        if not Path(filename).is_file():
            text = f"({self.arguments[0]} is not available in this build.)"
            return [nodes.paragraph(text=text)]
        return super().run()


def setup(app):
    app.add_directive("optional-include", OptionalInclude)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

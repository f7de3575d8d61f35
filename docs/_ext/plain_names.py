"""Names with an ``@`` in running text stay text.

docutils turns anything shaped like ``user@host`` into a ``mailto:`` link,
so ``NDCG@10`` or ``P@5`` in a sentence became an e-mail link. The pages
hold no e-mail address, so every such link is turned back into its text.
"""

from docutils import nodes
from sphinx.transforms import SphinxTransform


class PlainNames(SphinxTransform):
    default_priority = 500

    def apply(self, **kwargs):
        for node in list(self.document.findall(nodes.reference)):
            if node.get("refuri", "").startswith("mailto:"):
                node.replace_self(nodes.Text(node.astext()))


def setup(app):
    app.add_transform(PlainNames)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

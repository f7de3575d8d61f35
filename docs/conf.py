"""Sphinx configuration for the skirm documentation.

Build with ``sphinx-build -W --keep-going -b html docs docs/_build/html``.
The build needs no network: links to other projects' documentation
(intersphinx) are fetched only when ``SKIRM_DOCS_INTERSPHINX=1`` is set.
"""

import os
import sys
from pathlib import Path

# One thread per library: the gallery's boosters and BLAS would otherwise
# start a thread per core each and fight over a small build machine.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import skirm

project = "skirm"
author = "The skirm developers"
copyright = "The skirm developers"
version = release = skirm.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
    "myst_parser",
    "metric_table",
    "exit_statuses",
    "optional_include",
    "plain_names",
]

source_suffix = {".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
templates_path = ["_templates"]
default_role = "literal"

# A reference to a skirm object that does not exist is an error (with -W).
# References to other projects resolve only when intersphinx is enabled; they
# are never errors.
nitpicky = True
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(sklearn|numpy|scipy|pandas|matplotlib|lightgbm|xgboost|catboost)"
        r"(\..*)?",
    ),
    (r"py:.*", r"(np|pd)\..*"),
]

# -- API reference -----------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {
    "members": True,
    # Members of skirm's own mixins; none from scikit-learn's bases or object.
    "inherited-members": (
        "BaseEstimator, MetaEstimatorMixin, BaseCrossValidator, "
        "_MetadataRequester, object"
    ),
}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- Links to other projects -------------------------------------------------
# Inventories are only downloaded on request, so an offline build (CI) neither
# fails nor warns; references to other projects then render as plain text.
if os.environ.get("SKIRM_DOCS_INTERSPHINX") == "1":
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
        "pandas": ("https://pandas.pydata.org/docs", None),
        "sklearn": ("https://scikit-learn.org/stable", None),
    }
else:
    intersphinx_mapping = {}
intersphinx_timeout = 10

# -- Gallery -----------------------------------------------------------------
# One section per task, each a folder of examples/ with its README.txt (the
# section's title and one line); a new example goes in the folder of the task
# it shows, and a new task gets a folder and a line here.
GALLERY_SECTIONS = [
    "../examples/metrics",
    "../examples/tuning",
    "../examples/comparing",
    "../examples/trec",
    "../examples/judges",
]
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "subsection_order": GALLERY_SECTIONS,
    "within_subsection_order": "ExampleTitleSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "reference_url": {"skirm": None},
    "doc_module": ("skirm",),
    # "Examples using ..." at the end of each API page (the autosummary
    # template includes the mini-gallery of the object).
    "backreferences_dir": "api/generated/backreferences",
    "inspect_global_variables": False,
    # The gallery's timing pages would otherwise be pages of the site, found
    # by its search above the API pages.
    "write_computation_times": False,
    "plot_gallery": os.environ.get("SKIRM_DOCS_PLOT_GALLERY", "True"),
}

# -- Figures in the user guide ------------------------------------------------
# ``.. plot::`` runs its code when the pages are built and shows the figure
# under it; the code blocks of a page that share variables say ``:context:``.
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.figsize": (6.4, 3.6), "figure.autolayout": True}
plot_apply_rcparams = True

# -- Markdown (the benchmark README is included as is) -----------------------
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3
# Links in that README point to files of the repository, not to pages.
suppress_warnings = ["myst.xref_missing"]

# -- HTML ----------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"skirm {version}"
html_static_path = ["_static"]
html_css_files = ["skirm.css"]
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
}
html_sidebars = {"index": []}


def _skip_generated_request_methods(app, what, name, obj, skip, options):
    """Leave out the ``set_*_request`` methods scikit-learn generates.

    Their docstrings are scikit-learn's and point into its glossary; the
    metadata-routing behaviour of skirm's objects is described in their own
    docstrings and in the user guide.
    """
    if "RequestMethod" in getattr(obj, "__qualname__", ""):
        return True
    # A named tuple's count and index are the tuple's.
    if getattr(obj, "__objclass__", None) is tuple:
        return True
    # The halving searches inherit scikit-learn's search methods; they are
    # documented there (their docstrings point into scikit-learn's glossary).
    module = getattr(getattr(obj, "fget", obj), "__module__", None) or ""
    if module.startswith("sklearn.model_selection._search"):
        return True
    return skip


def _examples_using(app, what, name, obj, options, lines):
    """End each function's and class's page with the gallery examples that
    use it (sphinx-gallery's backreferences; nothing when none does)."""
    if what not in ("function", "class", "exception") or not name.startswith("skirm."):
        return
    # The gallery records the names an example uses: a class through its
    # methods (``Display.from_predictions``), a metric under ``skirm`` too.
    names = [name]
    short = name.rsplit(".", 1)[1]
    if name != f"skirm.{short}" and getattr(skirm, short, None) is obj:
        names.append(f"skirm.{short}")
    if what != "function":
        names += [
            f"{name}.{member}"
            for member, value in vars(obj).items()
            if not member.startswith("_")
            and callable(getattr(value, "__func__", value))
        ]
    kind = "function" if what == "function" else "class"
    lines += [
        "",
        f".. minigallery:: {' '.join(names)}",
        f"   :add-heading: Examples using this {kind}",
        "",
    ]


def setup(app):
    app.connect("autodoc-skip-member", _skip_generated_request_methods)
    # After numpydoc (priority 500) has turned the docstring into reST.
    app.connect("autodoc-process-docstring", _examples_using, priority=600)

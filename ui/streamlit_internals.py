"""Every private Streamlit detail the app relies on, in one place (pinned: streamlit==1.67.0).

``tests/app/test_kit_conventions.py`` (``test_the_streamlit_internals_we_rely_on_still_exist``,
``test_a_changed_figure_is_a_new_chart``) and ``tests/browser/test_pages_in_chromium.py``
(``test_a_new_chart_is_computed_once``) fail when an upgrade renames or changes any of
them, so a Streamlit bump is a deliberate, checked step rather than a silent breakage.

- ``PagesManager.uses_pages_directory``: a process-wide flag that starts ``True`` because
  ``pages/`` sits beside ``app.py`` and turns ``False`` only once ``st.navigation`` ran. Until
  then a direct link such as ``/softmax`` runs ``pages/softmax.py`` alone, without
  ``app.py`` (no page config, no navigation). :func:`ui.boot.require_entrypoint` turns it
  off.
- ``ScriptRunContext.main_script_path``: the script the server was started with
  (:func:`main_script_name`); :func:`ui.boot.require_entrypoint` reroutes a page only
  when that is ``app.py``.
- ``MESSAGE_FLUSH_INTERVAL_SECS``: how often the server sends queued messages; the page kit
  lets a chart go that much ahead of a formula (see :func:`ui.kit.chart`).
- The components-v2 manager of the running server (``Runtime.instance().
  bidi_component_registry``) and its manifest types: Streamlit serves a component's files
  (``/_stcore/bidi-components/<name>/<file>``) only for a component declared by an installed
  package's ``pyproject.toml``; :func:`serve_component_files` declares one for a folder of
  ours at run time (``ui.live``: its script, and plotly.js from the installed plotly).
- The running server itself (``Runtime.instance()``, ``None`` outside a server run):
  :func:`running_server`. ``ui.nav`` registers its component once per server on it.
- The app's answer to a ``popstate`` event (its Back and Forward buttons): it runs the page
  at the new address in the same session, with every control's value. ``ui/nav/nav.js``
  opens a sidebar link that way (``tests/browser/test_classroom_in_chromium.py``,
  ``test_the_language_selector_switches_and_the_choice_follows_to_other_pages``).
- PlotlyChart (``st.plotly_chart`` and its frontend): the element id hashes the figure, so a
  changed figure is a new chart, built from scratch; the chart never takes new data in
  place. Once mounted, the frontend hands Plotly a JSON copy of the same figure again with
  the width it measured. :func:`ui.kit.chart` gives every figure a fixed
  ``layout.datarevision`` so that this second pass only lays the chart out, and names the
  "none" template (:func:`figures.style.ours`): a template object made Plotly compute the
  chart again (bench/controls_report.md, round 11). A kept chart
  (``kit.chart(..., kept=True)``, ``ui.live.kept_chart``) is a component element instead,
  whose identity is its key: each new figure reaches the same plot.
- PlotlyChart keeps a new chart ``visibility: hidden`` (an inline style on the plot) until
  its element has measured its width, which it does only after Plotly's first draw: so a
  new chart was drawn hidden, then shown with the second pass. Plotly's first draw already
  fills the container (bench/controls_report.md, round 11), so :data:`SHOW_NEW_CHARTS_CSS`
  shows it (``tests/browser/test_pages_in_chromium.py``,
  ``test_a_new_chart_is_drawn_visible``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.runtime_util import MESSAGE_FLUSH_INTERVAL_SECS

__all__ = [
    "MESSAGE_FLUSH_INTERVAL_SECS",
    "SHOW_NEW_CHARTS_CSS",
    "leave_legacy_pages_mode",
    "main_script_name",
    "running_server",
    "serve_component_files",
]


# A stylesheet's !important rule wins over PlotlyChart's inline "visibility: hidden".
SHOW_NEW_CHARTS_CSS = (
    '[data-testid="stPlotlyChart"] .js-plotly-plot { visibility: visible !important; }'
)


def leave_legacy_pages_mode() -> None:
    """Make the process route every page through ``app.py``'s ``st.navigation``."""
    PagesManager.uses_pages_directory = False


def main_script_name() -> str | None:
    """The file name of the script this server runs (``None`` outside a script run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return None if ctx is None else Path(ctx.main_script_path).name


def running_server() -> Any | None:
    """The running server (``Runtime``; AppTest runs one of its own), or ``None``."""
    from streamlit.runtime import Runtime

    return Runtime.instance() if Runtime.exists() else None


def serve_component_files(package: str, name: str, root: Path, folder: str) -> Any | None:
    """Serve ``root/folder`` as the files of component ``<package>.<name>``; return the
    running server's component manager (``None`` outside a server run, e.g. no runtime).

    Idempotent: a name already declared keeps its folder.
    """
    from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest

    server = running_server()
    if server is None:
        return None
    manager = server.bidi_component_registry
    if manager.get_component_asset_root(f"{package}.{name}") is None:
        manifest = ComponentManifest(package, "1", [ComponentConfig(name, asset_dir=folder)])
        manager.register_from_manifest(manifest, root)
    return manager

"""The map of concepts: one entry per page, in navigation order.

app.py builds ``st.navigation`` from this list, the home page draws its cards from it, the
tests check that every file in ``pages/`` is registered here, and ``bench/latency`` reads
``probe`` to know which slider to press and which chart to watch on each page.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SECTIONS: tuple[str, ...] = (
    "foundations",
    "attention",
    "transformer",
    "efficient",
    "diffusion",
    "vision",
    "mathematics",
)


@dataclass(frozen=True)
class Concept:
    """One concept page.

    Attributes:
        slug: language-neutral id; also the URL path, the i18n key prefix and the name of
            ``assets/content/<lang>/<slug>.md``.
        section: one of ``SECTIONS``.
        icon: a Material icon name shown in the navigation and on the home cards.
        page: the file under ``pages/``.
        probe: ``(slider_key, chart_key)`` that ``bench/latency`` presses and watches.
    """

    slug: str
    section: str
    icon: str
    page: str
    probe: tuple[str, str]


CONCEPTS: tuple[Concept, ...] = (
    Concept(
        "softmax",
        "foundations",
        ":material/thermostat:",
        page="softmax.py",
        probe=("softmax_T", "softmax_probs_chart"),
    ),
    Concept(
        "attention_maps",
        "attention",
        ":material/grid_on:",
        page="attention_maps.py",
        probe=("attention_maps_query", "attention_maps_row_chart"),
    ),
    Concept(
        "sparse_attention",
        "attention",
        ":material/blur_linear:",
        page="sparse_attention.py",
        probe=("sparse_attention_layers", "sparse_attention_reach_chart"),
    ),
    Concept(
        "linear_attention",
        "attention",
        ":material/linear_scale:",
        page="linear_attention.py",
        probe=("linear_attention_d", "linear_attention_matrix_chart"),
    ),
    Concept(
        "set_transformer",
        "attention",
        ":material/scatter_plot:",
        page="set_transformer.py",
        probe=("set_transformer_m", "set_transformer_attention_chart"),
    ),
    Concept(
        "lambda_layers",
        "attention",
        ":material/functions:",
        page="lambda_layers.py",
        probe=("lambda_layers_side", "lambda_layers_cost_chart"),
    ),
    Concept(
        "transformer_families",
        "transformer",
        ":material/account_tree:",
        page="transformer_families.py",
        probe=("transformer_families_head", "transformer_families_maps_chart"),
    ),
    Concept(
        "vision_transformer",
        "transformer",
        ":material/grid_view:",
        page="vision_transformer.py",
        probe=("vision_transformer_P", "vision_transformer_patches_chart"),
    ),
    Concept(
        "backprop_by_hand",
        "transformer",
        ":material/undo:",
        page="backprop_by_hand.py",
        probe=("backprop_by_hand_N", "backprop_by_hand_forward_chart"),
    ),
    Concept(
        "pvt_sra",
        "efficient",
        ":material/photo_size_select_small:",
        page="pvt_sra.py",
        probe=("pvt_sra_col", "pvt_sra_maps_chart"),
    ),
    Concept(
        "swin_windows",
        "efficient",
        ":material/window:",
        page="swin_windows.py",
        probe=("swin_windows_window", "swin_windows_shift_chart"),
    ),
    Concept(
        "reformer_lsh",
        "efficient",
        ":material/tag:",
        page="reformer_lsh.py",
        probe=("reformer_lsh_b", "reformer_lsh_hash_chart"),
    ),
    Concept(
        "routing_clustering",
        "efficient",
        ":material/hub:",
        page="routing_clustering.py",
        probe=("routing_clustering_k", "routing_clustering_clusters_chart"),
    ),
    Concept(
        "attention_gallery",
        "efficient",
        ":material/compare:",
        page="attention_gallery.py",
        probe=("attention_gallery_col", "attention_gallery_maps_chart"),
    ),
    Concept(
        "forward_diffusion",
        "diffusion",
        ":material/blur_on:",
        page="forward_diffusion.py",
        probe=("forward_diffusion_pixel_t", "forward_diffusion_pixel_chart"),
    ),
    Concept(
        "diffusion_loss",
        "diffusion",
        ":material/function:",
        page="diffusion_loss.py",
        probe=("diffusion_loss_t", "diffusion_loss_posterior_chart"),
    ),
    Concept(
        "reverse_diffusion",
        "diffusion",
        ":material/settings_backup_restore:",
        page="reverse_diffusion.py",
        probe=("reverse_diffusion_steps", "reverse_diffusion_scrub_chart"),
    ),
    Concept(
        "diffusion_parameterisations",
        "diffusion",
        ":material/rotate_right:",
        page="diffusion_parameterisations.py",
        probe=("diffusion_parameterisations_t", "diffusion_parameterisations_rotation_chart"),
    ),
    Concept(
        "depthwise_separable",
        "vision",
        ":material/layers:",
        page="depthwise_separable.py",
        probe=("depthwise_separable_row", "depthwise_separable_filters_chart"),
    ),
    Concept(
        "sub_pixel_convolution",
        "vision",
        ":material/zoom_out_map:",
        page="sub_pixel_convolution.py",
        probe=("sub_pixel_convolution_out_col", "sub_pixel_convolution_shuffle_chart"),
    ),
    Concept(
        "simclr",
        "vision",
        ":material/compare:",
        page="simclr.py",
        probe=("simclr_draw", "simclr_views_chart"),
    ),
    Concept(
        "wallis",
        "mathematics",
        ":material/pie_chart:",
        page="wallis.py",
        probe=("wallis_n", "wallis_chart"),
    ),
    Concept(
        "permutations",
        "mathematics",
        ":material/swap_horiz:",
        page="permutations.py",
        probe=("permutations_k", "permutations_chart"),
    ),
    Concept(
        "cayley_hamilton",
        "mathematics",
        ":material/data_array:",
        page="cayley_hamilton.py",
        probe=("cayley_hamilton_k", "cayley_hamilton_chart"),
    ),
)


def concept(slug: str) -> Concept:
    """The registered concept called ``slug`` (``KeyError`` if there is none)."""
    for c in CONCEPTS:
        if c.slug == slug:
            return c
    raise KeyError(slug)

"""Every display formula fits its column in a 1024-pixel window with the sidebar open.

A teacher who projects at 1024 × 768, or a student on a small laptop, sees a formula whole:
no part of it behind a sideways scroll. The views below are every view of every page, with
the control values that make its formulas widest, in English and in Japanese, whose words
are wider in places (the backprop page's gradient rules, one for each tensor, were measured
all at once while the lines were broken; three of them are here).

Not yet: values that make one placeholder alone wider than the column, where the page's
Python would have to summarise or wrap it — softmax with 8–12 logits, Reformer's hash with
b ≥ 10 buckets (a side column), the backprop page's softmax Jacobian at N ≥ 7 and its
LayerNorm gradient at a few seeds, PVT's stage list in Japanese at sides ≥ 416,
Cayley–Hamilton's 8×8 polynomial and its powers t^k beyond k ≈ 24.

This window is the narrowest case: presenter mode draws formulas at 1.45 × the size, but it
folds the sidebar away, so each column is at least 1.45 × as wide there (measured below).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import wait_for_app

WINDOW = {"width": 1024, "height": 900}

# slug?query: together they show every formula template of every page
VIEWS = [
    "softmax",
    "softmax?softmax_T=0.057&softmax_logits=1000%2C+1001%2C+1002%2C+1003",
    "softmax?softmax_T=12&softmax_logits=1%2C+2%2C+3%2C+4%2C+5%2C+6%2C+7",
    "softmax?softmax_view=sqrt_d&softmax_d=1024",
    "softmax?softmax_view=calibration&softmax_bins=30",
    "softmax?softmax_view=contrastive&softmax_pairs=8&softmax_anchor=15",
    "attention_maps?"
    "attention_maps_d=64&attention_maps_sentence=the+cat+sat+on+the+mat+because+it+was+tired+and+the+dog+was+not+at+all&attention_maps_query=13",
    "attention_maps?"
    "attention_maps_view=heads&attention_maps_d=64&attention_maps_heads=8&attention_maps_sentence=the+cat+sat+on+the+mat+because+it+was+tired+and+the+dog+was+not+at+all",
    "attention_maps?attention_maps_view=scaling&attention_maps_D=1024",
    "attention_maps?attention_maps_view=masks&attention_maps_mask=padding&attention_maps_pad=10",
    "attention_maps?attention_maps_view=torch&attention_maps_torch_heads=8",
    "sparse_attention?"
    "sparse_attention_n=64&sparse_attention_layers=8&sparse_attention_pattern=bigbird",
    "sparse_attention?"
    "sparse_attention_view=cost&sparse_attention_cost_n=16384&sparse_attention_pattern=bigbird",
    "linear_attention?linear_attention_view=causal&linear_attention_N=64&linear_attention_d=64",
    "linear_attention?linear_attention_N=64&linear_attention_d=64",
    "linear_attention?linear_attention_view=timing",
    "set_transformer?set_transformer_n=256&set_transformer_m=32",
    "set_transformer?set_transformer_n=32&set_transformer_m=32",
    "set_transformer?set_transformer_view=equivariance&set_transformer_n=256",
    "set_transformer?set_transformer_view=pooling&set_transformer_n=256",
    "set_transformer?set_transformer_view=model&set_transformer_n=256",
    "lambda_layers?lambda_layers_side=128",
    "lambda_layers?"
    "lambda_layers_view=content&lambda_layers_content_H=16&lambda_layers_row=15&lambda_layers_col=15",
    "lambda_layers?"
    "lambda_layers_view=content&lambda_layers_side=8&lambda_layers_row=4&lambda_layers_col=0",
    "lambda_layers?"
    "lambda_layers_view=position&lambda_layers_position_H=16&lambda_layers_r=9&lambda_layers_row=15&lambda_layers_col=15",
    "lambda_layers?lambda_layers_view=position",
    "reformer_lsh?reformer_lsh_rounds=4",
    "reformer_lsh?reformer_lsh_dim=16&reformer_lsh_rounds=4",
    "reformer_lsh?reformer_lsh_b=8",
    "reformer_lsh?reformer_lsh_view=attention&reformer_lsh_rounds=4&reformer_lsh_chunk=16",
    "reformer_lsh?reformer_lsh_view=collision&reformer_lsh_b=2&reformer_lsh_rounds=4",
    "reformer_lsh?"
    "reformer_lsh_view=collision&reformer_lsh_b=16&reformer_lsh_rounds=4&reformer_lsh_dim=16",
    "transformer_families",
    "transformer_families?"
    "transformer_families_source=a%20b%20c%20d%20e%20f%20g%20h%20i%20j&transformer_families_target=a%20b%20c%20d%20e%20f%20g%20h%20i%20j",
    "transformer_families?"
    "transformer_families_view=params&transformer_families_d_model=4096&transformer_families_ff_ratio=8",
    "transformer_families?"
    "transformer_families_view=cache&transformer_families_length=131072&transformer_families_layers=96&transformer_families_cache_d=4096&transformer_families_bytes=4",
    "vision_transformer?vision_transformer_P=4",
    "vision_transformer?"
    "vision_transformer_view=attention&vision_transformer_attention_P=4&vision_transformer_query=256",
    "vision_transformer?vision_transformer_view=cost&vision_transformer_cost_P=4",
    "backprop_by_hand?backprop_by_hand_N=8",
    "backprop_by_hand?backprop_by_hand_view=gradients&backprop_by_hand_tensor=b_k",
    "backprop_by_hand?backprop_by_hand_view=gradients&backprop_by_hand_tensor=S",
    "backprop_by_hand?backprop_by_hand_view=gradients&backprop_by_hand_tensor=x",
    "backprop_by_hand?backprop_by_hand_view=softmax_jacobian&backprop_by_hand_N=6",
    "backprop_by_hand?backprop_by_hand_view=layernorm",
    "backprop_by_hand?backprop_by_hand_view=training",
    "pvt_sra?pvt_sra_side=32&pvt_sra_R=1",
    "pvt_sra?pvt_sra_view=cost&pvt_sra_cost_side=1024",
    "pvt_sra?pvt_sra_view=stages&pvt_sra_stage_side=384",
    "pvt_sra?pvt_sra_view=torch&pvt_sra_torch_R=1",
    "swin_windows?swin_windows_H=16&swin_windows_M=4&swin_windows_shifted=0",
    "swin_windows?swin_windows_H=32&swin_windows_M=2",
    "swin_windows?swin_windows_view=bias&swin_windows_bias_M=8&swin_windows_bias_query=63",
    "swin_windows?swin_windows_view=stages&swin_windows_stage_side=1024",
    "swin_windows?"
    "swin_windows_view=cost&swin_windows_C=192&swin_windows_cost_M=12&swin_windows_cost_h=384",
    "depthwise_separable?depthwise_separable_filters_k=5&depthwise_separable_channels=6",
    "depthwise_separable?"
    "depthwise_separable_view=cost&depthwise_separable_kernel=7&depthwise_separable_m=1024&depthwise_separable_n=1024&depthwise_separable_feature=112",
    "depthwise_separable?depthwise_separable_view=mobilenet",
    "depthwise_separable?"
    "depthwise_separable_view=torch&depthwise_separable_torch_m=6&depthwise_separable_torch_n=6&depthwise_separable_torch_k=5",
    "depthwise_separable?depthwise_separable_view=timing",
    "sub_pixel_convolution?"
    "sub_pixel_convolution_r=4&sub_pixel_convolution_height=4&sub_pixel_convolution_out_row=15&sub_pixel_convolution_out_col=15",
    "sub_pixel_convolution?"
    "sub_pixel_convolution_view=transposed&sub_pixel_convolution_t_r=4&sub_pixel_convolution_kernel=5",
    "sub_pixel_convolution?sub_pixel_convolution_view=artefacts&sub_pixel_convolution_t_kernel=4",
    "simclr?simclr_n=8&simclr_strength=1.5&simclr_draw=7",
    "simclr?"
    "simclr_view=similarity&simclr_n=8&simclr_encoder=untrained&simclr_tau=0.01&simclr_anchor=16",
    "simclr?simclr_view=temperature&simclr_n=8&simclr_encoder=untrained&simclr_tau=0.01",
    "simclr?simclr_view=training",
    "wallis?wallis_n=12",
    "wallis?wallis_n=100000",
    "wallis?wallis_view=integrals&wallis_N=20",
    "permutations?permutations_random=1",
    "permutations?permutations_sigma=9%208%207%206%205%204%203%202%201&permutations_k=-11",
    "permutations?"
    "permutations_view=compose&permutations_sigma=9%208%207%206%205%204%203%202%201&permutations_tau=(1%209)(2%208%203%207)",
    "cayley_hamilton?cayley_hamilton_random=1&cayley_hamilton_n=4",
    "cayley_hamilton?cayley_hamilton_random=1&cayley_hamilton_n=7",
    "cayley_hamilton?cayley_hamilton_k=24",
    "cayley_hamilton?cayley_hamilton_matrix=1%202;%202%204",
    "cayley_hamilton?cayley_hamilton_view=two_by_two",
    "routing_clustering?routing_clustering_k=8&routing_clustering_causal=1",
    "routing_clustering?routing_clustering_k=1",
    "routing_clustering?routing_clustering_view=mips&routing_clustering_probe=16",
    "attention_gallery?"
    "attention_gallery_side=32&attention_gallery_row=31&attention_gallery_col=31&attention_gallery_method=reformer",
    "attention_gallery?"
    "attention_gallery_side=32&attention_gallery_row=31&attention_gallery_col=31&attention_gallery_method=band",
    "attention_gallery?attention_gallery_view=compare&attention_gallery_side=32",
    "attention_gallery?attention_gallery_view=time",
    "forward_diffusion?forward_diffusion_T=2000&forward_diffusion_pixel_t=2000",
    "forward_diffusion?"
    "forward_diffusion_view=chain&forward_diffusion_T=2000&forward_diffusion_chain_t=1999",
    "diffusion_loss?diffusion_loss_T=2000&diffusion_loss_t=1500",
    "diffusion_loss?diffusion_loss_kind=cosine&diffusion_loss_t=2",
    "diffusion_loss?"
    "diffusion_loss_view=kl&diffusion_loss_mean_p=-2.75&diffusion_loss_mean_q=-3&diffusion_loss_var_p=0.75&diffusion_loss_var_q=0.25",
    "diffusion_loss?diffusion_loss_view=elbo&diffusion_loss_kind=cosine&diffusion_loss_elbo_t=2",
    "diffusion_loss?diffusion_loss_view=elbo&diffusion_loss_T=2000&diffusion_loss_elbo_t=2000",
    "reverse_diffusion",
    "reverse_diffusion?reverse_diffusion_sampler=ddpm",
    "reverse_diffusion?reverse_diffusion_sampler=euler",
    "reverse_diffusion?reverse_diffusion_sampler=heun",
    "reverse_diffusion?reverse_diffusion_view=field",
    "reverse_diffusion?reverse_diffusion_view=quality",
    "reverse_diffusion?reverse_diffusion_view=training",
    "diffusion_parameterisations?"
    "diffusion_parameterisations_x0=-2.5&diffusion_parameterisations_eps=-2.5&diffusion_parameterisations_t=1000",
    "diffusion_parameterisations?"
    "diffusion_parameterisations_view=weights&diffusion_parameterisations_weights_t=1000",
    "diffusion_parameterisations?diffusion_parameterisations_view=schedules",
    "diffusion_parameterisations?"
    "diffusion_parameterisations_view=leak&diffusion_parameterisations_leak_schedule=cosine",
]

# the formulas drawn (kit.show_only keeps every reverse sampler's formula, one of them shown)
FORMULAS = """() => [...document.querySelectorAll('[data-testid="stMain"] .katex-display')]
    .filter(d => d.checkVisibility())
    .map(d => ({box: d.clientWidth, width: d.querySelector('.katex').scrollWidth,
                tex: (d.querySelector('annotation') || {}).textContent || ''}))"""


def formulas(page: Page, url: str) -> list[dict]:
    page.goto(url)
    wait_for_app(page)
    page.wait_for_function(f"() => ({FORMULAS})().length > 0")
    return page.evaluate(FORMULAS)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("view", VIEWS)
def test_every_formula_fits_its_column_at_1024_pixels(page, server, view, lang):
    page.set_viewport_size(WINDOW)
    sep = "&" if "?" in view else "?"
    shown = formulas(page, f"{server.url}/{view}{sep}lang={lang}")
    assert shown
    wide = [(f["width"], f["box"], f["tex"][:80]) for f in shown if f["width"] > f["box"]]
    assert wide == [], wide


@pytest.mark.parametrize("view", ["set_transformer", "softmax"])
def test_presenter_mode_gives_a_formula_at_least_its_larger_size_in_width(page, server, view):
    """The claim above that makes the 1024-pixel window the case to test: in presenter
    mode (type 1.45 ×) every formula's column is at least 1.45 × as wide, in the main
    column (softmax) and in a side-by-side column (Set Transformer)."""
    page.set_viewport_size(WINDOW)
    normal = [f["box"] for f in formulas(page, f"{server.url}/{view}")]
    page.set_viewport_size({"width": 1024, "height": 768})
    presenting = [f["box"] for f in formulas(page, f"{server.url}/{view}?present=1")]
    assert len(normal) == len(presenting) > 0
    assert all(p >= 1.45 * n for p, n in zip(presenting, normal, strict=True)), (normal, presenting)

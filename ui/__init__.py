"""Shared UI layer: the page kit every page is built from (Streamlit lives here and in pages/)."""

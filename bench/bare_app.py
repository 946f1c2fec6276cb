"""The baseline for bench/latency: a bare one-slider Streamlit app, run with default settings.

Every page's keypress→chart-redrawn latency is compared with this app's, measured in the
same run on the same machine.
"""

import plotly.graph_objects as go
import streamlit as st

value = st.slider("value", 0, 100, 50, key="bare_slider")
st.plotly_chart(go.Figure(go.Bar(x=["a", "b"], y=[value, 100 - value])), key="bare_chart")

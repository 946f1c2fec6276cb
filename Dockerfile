# One image for a class:  docker build -t adlab . && docker run -p 8501:8501 adlab
# Several replicas behind nginx for a cohort: deploy/compose.yaml. Proof that it builds and
# serves (Podman, no registry): deploy/verify_image.sh. Lint: hadolint Dockerfile.
#
# torch is the CPU build. Its source is a build argument so a mirror or a local wheel folder
# can replace PyTorch's CPU index:
#   --build-arg TORCH_INDEX_URL=https://mirror.example/whl/cpu     a PEP 503 index
#   --build-arg TORCH_INDEX_URL=/wheels  (+ the folder mounted at /wheels during the build)
FROM python:3.11-slim-bookworm

ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

LABEL org.opencontainers.image.title="attention-diffusion-lab" \
      org.opencontainers.image.description="Interactive pages that make the mathematics of attention and diffusion visible"

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    STREAMLIT_SERVER_HEADLESS=true \
    STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    STREAMLIT_SERVER_PORT=8501

WORKDIR /app
COPY requirements.txt .
# 1. torch alone, without its dependencies, from the CPU source only (PyPI's Linux torch
#    would pull several GB of CUDA libraries); 2. everything pinned in requirements.txt from
#    PyPI, torch's own small dependencies included (torch is already satisfied);
# 3. what no running app needs: torch's C++ headers, CMake files and test binaries, the
#    packages' test suites.
RUN set -eu; \
    grep '^torch==' requirements.txt > /tmp/torch.txt; \
    if [ -d "${TORCH_INDEX_URL}" ]; then \
      set -- --no-index --find-links "${TORCH_INDEX_URL}"; \
    else \
      set -- --index-url "${TORCH_INDEX_URL}"; \
    fi; \
    pip install --no-cache-dir --no-deps "$@" -r /tmp/torch.txt; \
    pip install --no-cache-dir -r requirements.txt; \
    python -c 'import torch; assert not torch.cuda.is_available() and "+cpu" in torch.__version__, torch.__version__'; \
    site="$(python -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')"; \
    rm -rf "${site}/torch/include" "${site}/torch/share/cmake" "${site}/torch/test" \
      "${site}/torch/bin/protoc"* "${site}/torch/bin/"*Test "${site}/torch/bin/test_"* \
      "${site}/pyarrow/include"; \
    find "${site}" -type d -name tests -prune -exec rm -rf {} +; \
    rm -f /tmp/torch.txt

# A user without a shell or password; the code stays root-owned and read-only to it.
RUN useradd --uid 10001 --user-group --create-home --shell /usr/sbin/nologin app
COPY app.py ./
COPY .streamlit/ .streamlit/
COPY assets/ assets/
COPY core/ core/
COPY figures/ figures/
COPY pages/ pages/
COPY ui/ ui/
USER 10001:10001

EXPOSE 8501
# No curl in the image: Python's urllib asks Streamlit's own health endpoint (on the port
# STREAMLIT_SERVER_PORT names, so `-e STREAMLIT_SERVER_PORT=...` moves both).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import os, sys, urllib.request; url = 'http://127.0.0.1:%s/_stcore/health' % os.environ.get('STREAMLIT_SERVER_PORT', '8501'); sys.exit(urllib.request.urlopen(url, timeout=4).status != 200)"]

CMD ["streamlit", "run", "app.py"]

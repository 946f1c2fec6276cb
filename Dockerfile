# One image for a class: `docker build -t adlab . && docker run -p 8501:8501 adlab`.
# torch is the CPU build: its wheel index is a build argument, so a mirror or a local
# wheel folder can replace it (--build-arg TORCH_INDEX_URL=...).
FROM python:3.11-slim

ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements.txt .
# torch first, from the CPU index only (PyPI's Linux torch pulls several GB of CUDA).
RUN pip install --index-url "${TORCH_INDEX_URL}" "$(grep '^torch==' requirements.txt)" \
 && pip install -r requirements.txt

RUN useradd --create-home --uid 10001 app
COPY --chown=app:app . .
USER app

EXPOSE 8501
# No curl in the image: Python's urllib asks Streamlit's own health endpoint.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).status != 200)"]

CMD ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]

"""The memory of CVT-aware query statements: decomposition, descriptions, embeddings, FAISS recall, bank files."""

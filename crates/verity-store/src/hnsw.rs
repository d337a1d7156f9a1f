//! Dense vector index over hnsw_rs: cosine, filtered search during the graph walk, tombstone deletes, dumps.

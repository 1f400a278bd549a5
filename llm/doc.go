// Package llm talks to OpenAI-compatible endpoints (OpenAI, vLLM, Ollama,
// a local text-embeddings server, ...) through openai-go: embeddings now,
// chat and structured outputs as the planner and synthesizer need them.
package llm

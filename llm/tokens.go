package llm

import "encoding/json"

// Token estimate constants: a budget reservation must not fall short of
// the tokens the endpoint then reports, so each errs high.
const (
	bytesPerToken    = 3  // BPE tokenizers average about 4 bytes of English per token
	tokensPerMessage = 8  // role and message framing (OpenAI's is 3 or 4)
	tokensPerRequest = 16 // reply priming and request framing
)

// EstimateTokens returns an upper-bound estimate of the prompt tokens of
// msgs, for a budget reservation made before the call: a third of the
// bytes of each message's role and content (rounded up), plus 8 per
// message, plus 16. Tokenizers of the GPT, Llama, Qwen and DeepSeek
// families average about four bytes of English or financial prose per
// token, so the estimate over-estimates such text by a third or more and a
// reservation covers the real count. Text dense in rare symbols or in
// scripts the tokenizer splits finely can exceed it; such prompts are not
// what the planner and synthesizer send.
func EstimateTokens(msgs []Message) int64 {
	n := int64(tokensPerRequest)
	for _, m := range msgs {
		n += ceilDiv(int64(len(m.Role)+len(m.Content)), bytesPerToken) + tokensPerMessage
	}
	return n
}

// EstimateRequestTokens is EstimateTokens of req's messages plus the
// structured-outputs schema, which endpoints that honour response_format
// put into the prompt and count as input tokens.
func EstimateRequestTokens(req ChatRequest) int64 {
	n := EstimateTokens(req.Messages)
	if req.Schema != nil {
		b, err := json.Marshal(req.Schema.Schema)
		if err == nil {
			n += ceilDiv(int64(len(b)+len(req.Schema.Name)+len(req.Schema.Description)), bytesPerToken) + tokensPerMessage
		}
	}
	return n
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

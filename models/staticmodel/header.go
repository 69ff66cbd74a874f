package staticmodel

import (
	"encoding/json"
	"fmt"
)

// Header is the part of a tokenizer.json that decides the tokenisation
// around the vocabulary: the normaliser, the pre-tokenizer, the added
// tokens and the WordPiece settings.
type Header struct {
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		Lowercase          *bool  `json:"lowercase"`
		StripAccents       *bool  `json:"strip_accents"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	PostProcessor *struct {
		Type   string `json:"type"`
		Single []struct {
			SpecialToken *struct {
				ID string `json:"id"`
			} `json:"SpecialToken"`
			Sequence *struct {
				ID string `json:"id"`
			} `json:"Sequence"`
		} `json:"single"`
	} `json:"post_processor"`
	AddedTokens []AddedToken `json:"added_tokens"`
	Model       struct {
		Type          string   `json:"type"`
		UnkToken      string   `json:"unk_token"`
		MaxInputChars *float64 `json:"max_input_chars_per_word"`
	} `json:"model"`
}

// AddedToken is one entry of added_tokens.
type AddedToken struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	Special    bool   `json:"special"`
	Normalized bool   `json:"normalized"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
}

// ParseHeader reads a tokenizer.json's header (the vocabulary is skipped).
func ParseHeader(raw []byte) (*Header, error) {
	var h Header
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	return &h, nil
}

// PreNorm is megagit's own pre-normalisation for an uncased BERT
// vocabulary, what HF's BertNormalizer does and sugarme's does not: strip
// accents after NFD ("café" -> "cafe") and lowercase, leaving literal added
// tokens such as "[CLS]" alone.
func (h *Header) PreNorm() PreNorm {
	var p PreNorm
	if n := h.Normalizer; n != nil && n.Type == "BertNormalizer" {
		p.lowercase = n.Lowercase == nil || *n.Lowercase // HF default: true
		// HF: strip_accents null means "follow lowercase".
		p.strip = p.lowercase
		if n.StripAccents != nil {
			p.strip = *n.StripAccents
		}
	}
	for _, a := range h.AddedTokens {
		if !a.Normalized && a.Content != "" {
			p.literals = append(p.literals, a.Content)
		}
	}
	return p
}

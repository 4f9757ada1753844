package hook

import (
	"os"
	"testing"
)

// TestGeminiCompressedSince reads Gemini CLI 0.61.0 transcripts (a real
// session's records; the compression's two records as its
// ChatRecordingService writes them when a compression starts a new chat on
// the file): past the offset where an automatic PreCompress found the file,
// a compression shows, a no-op turn and a later masking of tool output do
// not, nor a compression that kept the prompt carrying mem's start block
// (the model has it still), and a file shorter than the offset tells
// nothing.
func TestGeminiCompressedSince(t *testing.T) {
	size := func(name string) int64 {
		fi, err := os.Stat("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before, compressed := size("gemini-0.61.0-before.jsonl"), size("gemini-0.61.0-compressed.jsonl")
	for _, tc := range []struct {
		name string
		file string
		from int64
		want bool
	}{
		{"compressed after the PreCompress", "gemini-0.61.0-compressed.jsonl", before, true},
		{"read from the start", "gemini-0.61.0-compressed.jsonl", 0, true},
		{"no-op turn", "gemini-0.61.0-noop.jsonl", before, false},
		{"compressed, the start block kept", "gemini-0.61.0-kept-block.jsonl", before, false},
		{"compressed before the PreCompress", "gemini-0.61.0-masked.jsonl", compressed, false},
		{"masked tool output after an earlier compression", "gemini-0.61.0-masked.jsonl", compressed - 1, false},
		{"file shorter than the offset", "gemini-0.61.0-before.jsonl", compressed, false},
		{"no transcript", "no-such-file.jsonl", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.file != "no-such-file.jsonl" {
				size(tc.file) // a fixture that went missing must not pass as "no compression"
			}
			if got := geminiCompressedSince("testdata/"+tc.file, tc.from); got != tc.want {
				t.Errorf("geminiCompressedSince(%s, %d) = %v, want %v", tc.file, tc.from, got, tc.want)
			}
		})
	}
}

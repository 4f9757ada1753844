package hook

import (
	"os"
	"testing"
)

// TestGeminiCompressedSince reads a Gemini CLI 0.61.0 transcript recorded
// from the real CLI against a fake model (a headless run, then a resumed
// one whose second request comes after an automatic compression: the fake
// model reported a prompt of 900,000 tokens), cut where the PreCompress
// events found it: past that offset a compression shows; the resumed run's
// new chat (no summary in it), a later setting of the messages with no new
// chat, and a compression that kept the prompt carrying mem's start block
// (the recorded BeforeAgent prompt put in its place: the model has the
// block still) do not; a file shorter than the offset tells nothing.
func TestGeminiCompressedSince(t *testing.T) {
	size := func(name string) int64 {
		fi, err := os.Stat("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	turn, before, compressed := size("gemini-0.61.0-turn.jsonl"), size("gemini-0.61.0-before.jsonl"), size("gemini-0.61.0-compressed.jsonl")
	for _, tc := range []struct {
		name string
		file string
		from int64
		want bool
	}{
		{"compressed after the PreCompress", "gemini-0.61.0-compressed.jsonl", before, true},
		{"read from the start", "gemini-0.61.0-compressed.jsonl", 0, true},
		{"a resumed run's new chat, no compression", "gemini-0.61.0-before.jsonl", turn, false},
		{"compressed, the start block kept", "gemini-0.61.0-kept-block.jsonl", before, false},
		{"compressed before the PreCompress", "gemini-0.61.0-compressed.jsonl", compressed, false},
		{"the messages set again after a compression", "gemini-0.61.0-masked.jsonl", compressed, false},
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

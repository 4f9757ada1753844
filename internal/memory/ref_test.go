package memory

import "testing"

func TestParseRef(t *testing.T) {
	tests := []struct {
		in   string
		want Ref
		ok   bool
	}{
		{"12", Ref{ID: 12}, true},
		{"#12", Ref{ID: 12}, true},
		{" #12 ", Ref{ID: 12}, true},
		{"S3", Ref{Summary: true, ID: 3}, true},
		{"#S3", Ref{Summary: true, ID: 3}, true},
		{"s3", Ref{Summary: true, ID: 3}, true},
		{"P7", Ref{Prompt: true, ID: 7}, true},
		{"#p7", Ref{Prompt: true, ID: 7}, true},
		{"", Ref{}, false},
		{"#", Ref{}, false},
		{"S", Ref{}, false},
		{"0", Ref{}, false},
		{"-4", Ref{}, false},
		{"S#3", Ref{}, false},
		{"##3", Ref{}, false},
		{"X3", Ref{}, false},
		{"3x", Ref{}, false},
	}
	for _, tt := range tests {
		got, err := ParseRef("ref", tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !IsInvalid(err) {
			t.Errorf("ParseRef(%q): %v is no ValidationError", tt.in, err)
		}
		if tt.ok {
			if back, err := ParseRef("ref", got.String()); err != nil || back != got {
				t.Errorf("ParseRef(%q.String() = %q) = %+v, %v", tt.in, got.String(), back, err)
			}
		}
	}
}

package main

import (
	"reflect"
	"testing"
)

func TestParseDiff(t *testing.T) {
	diff := `diff --git a/src/link.c b/src/link.c
index 1111111..2222222 100644
--- a/src/link.c
+++ b/src/link.c
@@ -10,4 +10,5 @@ int bpf_link_attach(int fd)
 	int err;
-	err = attach(fd);
+	err = attach(fd, 0);
+	if (err) return err;
 	return 0;
diff --git a/src/new.h b/src/new.h
new file mode 100644
--- /dev/null
+++ b/src/new.h
@@ -0,0 +1,2 @@
+#define X 1
+#define Y 2
diff --git a/old.c b/old.c
deleted file mode 100644
--- a/old.c
+++ /dev/null
@@ -1 +0,0 @@
-gone
`
	got := parseDiff(diff)
	want := []fileChange{
		{Path: "src/link.c", Hunks: []hunk{{
			Old: "\tint err;\n\terr = attach(fd);\n\treturn 0;\n",
			New: "\tint err;\n\terr = attach(fd, 0);\n\tif (err) return err;\n\treturn 0;\n"}}},
		{Path: "src/new.h", New: true, Content: "#define X 1\n#define Y 2\n"},
		{Path: "old.c", Deleted: true, Hunks: []hunk{{Old: "gone\n", New: ""}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseDiff:\n got %#v\nwant %#v", got, want)
	}
}

func TestCleanMessage(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"libbpf: fix leak\n\nCommit 0123456789ab (\"libbpf: add link\") leaked fd.\n\nFixes: 0123456789ab (\"libbpf: add link\")\nSigned-off-by: A <a@b>\nLink: https://x",
			"libbpf: fix leak\n\nCommit  leaked fd."},
		{"nvme: plain subject", "nvme: plain subject"},
	} {
		if got := cleanMessage(tt.in); got != tt.want {
			t.Errorf("cleanMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRankOf(t *testing.T) {
	targets := map[string]bool{"c": true, "e": true}
	for _, tt := range []struct {
		ss   []string
		want int
	}{
		{[]string{"a", "a", "b", "c"}, 3}, // a session named twice counts once
		{[]string{"", "e"}, 1},            // a record of no known session is skipped
		{[]string{"a", "b"}, 0},
	} {
		if got := rankOf(tt.ss, targets); got != tt.want {
			t.Errorf("rankOf(%v) = %d, want %d", tt.ss, got, tt.want)
		}
	}
}

func TestBM25(t *testing.T) {
	b := newBM25()
	b.add("libbpf: add bpf_link_attach")
	b.add("nvme: fix the namespace listing")
	b.add("libbpf: fix bpf_link_attach errno")
	if got := b.rank("bpf_link_attach loses errno"); !reflect.DeepEqual(got, []int{2, 0}) {
		t.Fatalf("rank = %v, want [2 0]", got)
	}
}

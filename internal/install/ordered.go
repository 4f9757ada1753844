package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// object is a JSON object that keeps its keys in order, so that editing a
// settings file leaves everything mem did not add where the user put it.
// A value the file wrote on one line keeps its text while it holds what
// that text says: encode writes it back as the user wrote it.
type object struct {
	keys []string
	vals map[string]any    // *object, []any, json.Number, string, bool or nil
	raw  []byte            // the object's own text, when on one line
	raws map[string][]byte // the text of array members, when on one line
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// parseObject reads a JSON document that must be an object. Empty input is
// an empty object (a settings file that does not exist yet).
func parseObject(data []byte) (*object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), nil
	}
	p := &parser{data: data, dec: json.NewDecoder(bytes.NewReader(data)), maxIndent: maxIndent + 2*len(data)}
	p.dec.UseNumber()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	o, ok := v.(*object)
	if !ok {
		return nil, errors.New("the file is not a JSON object")
	}
	return o, nil
}

// Limits on what parseObject accepts. Agents' settings nest a handful of
// levels deep; a file nested thousands deep would take time and memory with
// the square of its depth once written back indented (encode), so the depth
// is bounded, and so is the indentation the file would be written with: to
// maxIndent bytes plus twice the file's size, which real files (a few bytes
// of indentation a line) stay well within.
const (
	MaxDepth  = 512
	maxIndent = 16 << 20
)

// parser reads JSON values and counts the indentation encode will give them.
type parser struct {
	data              []byte
	dec               *json.Decoder
	indent, maxIndent int
	last              int64 // where the last container read began
}

// oneLine returns the text from start to where the decoder is, when it
// holds no line break.
func (p *parser) oneLine(start int64) []byte {
	raw := p.data[start:p.dec.InputOffset()]
	if bytes.ContainsAny(raw, "\r\n") {
		return nil
	}
	return raw
}

// value reads one value nested depth levels deep.
func (p *parser) value(depth int) (any, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	delim, isDelim := tok.(json.Delim)
	if isDelim && depth >= MaxDepth {
		return nil, fmt.Errorf("objects and arrays are nested more than %d deep", MaxDepth)
	}
	// Each value starts a line indented by two spaces a level, and a
	// container ends with a line as deep.
	if p.indent += 2 * depth; isDelim {
		p.indent += 2 * depth
	}
	if p.indent > p.maxIndent {
		return nil, fmt.Errorf("objects and arrays are nested too deeply to write back (more than %d MiB of indentation)", p.maxIndent>>20)
	}
	if !isDelim {
		return tok, nil
	}
	start := p.dec.InputOffset() - 1
	switch delim {
	case '{':
		o := newObject()
		for p.dec.More() {
			kt, err := p.dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o.set(k, v)
			if _, ok := v.([]any); ok {
				if raw := p.oneLine(p.last); raw != nil {
					if o.raws == nil {
						o.raws = map[string][]byte{}
					}
					o.raws[k] = raw
				}
			}
		}
		_, err := p.dec.Token()
		o.raw = p.oneLine(start)
		p.last = start
		return o, err
	case '[':
		a := []any{}
		for p.dec.More() {
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := p.dec.Token()
		p.last = start
		return a, err
	}
	return nil, fmt.Errorf("unexpected %v", delim)
}

// encode writes v as JSON indented by two spaces, ending with a newline.
func encode(v any) []byte {
	var b strings.Builder
	writeValue(&b, v, "")
	b.WriteString("\n")
	return []byte(b.String())
}

func writeValue(b *strings.Builder, v any, indent string) {
	switch t := v.(type) {
	case *object:
		if same(t.raw, t) {
			b.Write(t.raw)
			return
		}
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range t.keys {
			b.WriteString(indent + "  ")
			writeScalar(b, k)
			b.WriteString(": ")
			if raw := t.raws[k]; same(raw, t.vals[k]) {
				b.Write(raw)
			} else {
				writeValue(b, t.vals[k], indent+"  ")
			}
			if i < len(t.keys)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, x := range t {
			b.WriteString(indent + "  ")
			writeValue(b, x, indent+"  ")
			if i < len(t)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(indent + "]")
	default:
		writeScalar(b, v)
	}
}

// same reports whether raw, a value's text as read, still says what v
// holds.
func same(raw []byte, v any) bool {
	if raw == nil {
		return false
	}
	var c bytes.Buffer
	return json.Compact(&c, raw) == nil && bytes.Equal(c.Bytes(), compact(v))
}

// compact writes v as JSON without spaces; values that compare equal as
// JSON (keys in the same order) give the same bytes.
func compact(v any) []byte {
	var b strings.Builder
	writeCompact(&b, v)
	return []byte(b.String())
}

func writeCompact(b *strings.Builder, v any) {
	switch t := v.(type) {
	case *object:
		b.WriteString("{")
		for i, k := range t.keys {
			if i > 0 {
				b.WriteString(",")
			}
			writeScalar(b, k)
			b.WriteString(":")
			writeCompact(b, t.vals[k])
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, x := range t {
			if i > 0 {
				b.WriteString(",")
			}
			writeCompact(b, x)
		}
		b.WriteString("]")
	default:
		writeScalar(b, v)
	}
}

func writeScalar(b *strings.Builder, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
}

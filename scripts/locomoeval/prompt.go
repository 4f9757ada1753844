package main

import (
	"context"
	"io"
)

func (e *evaluation) promptTime(ctx context.Context, out io.Writer, memFree string) error { return nil }

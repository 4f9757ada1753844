package web

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/memhq/mem/internal/fsafe"
)

// tokenBytes is the size of a token: 256 random bits.
const tokenBytes = 32

// TokenState says where a token came from.
type TokenState string

const (
	TokenKept    TokenState = "the token of the last run"
	TokenNew     TokenState = "a new token (there was none)"
	TokenRenewed TokenState = "a new token (--new-token): the old address and cookies no longer open the viewer"
	TokenLoose   TokenState = "a new token: the old file was readable by other users"
)

// KeepToken returns the token kept in path, so that the viewer's address
// and its cookie survive a restart. A new one is made and written (the
// file 0600, its folder 0700) when there is none, when renew is set, when
// the file holds no token, or when other users could read it: a token
// they may have read is a token no more.
func KeepToken(path string, renew bool) (string, TokenState, error) {
	if path == "" {
		return "", "", errors.New("web: no token file (set [web] token_file)")
	}
	state := TokenRenewed
	if !renew {
		state = TokenNew
		b, loose, err := readPrivate(path)
		switch {
		case err == nil:
			if loose {
				state = TokenLoose
				break
			}
			if t := strings.TrimSpace(string(b)); validToken(t) {
				return t, TokenKept, nil
			}
		case !errors.Is(err, fs.ErrNotExist):
			return "", "", fmt.Errorf("web: reading the token file: %w", err)
		}
	}
	t, err := randomToken()
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", "", fmt.Errorf("web: the token file's folder: %w", err)
	}
	// A loose file would keep its mode through fsafe.WriteFile: remove it
	// first.
	if _, loose := fsafe.Loose(path); loose {
		if err := fsafe.Remove(path); err != nil {
			return "", "", fmt.Errorf("web: removing the readable token file: %w", err)
		}
	}
	if err := fsafe.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("web: writing the token file: %w", err)
	}
	return t, state, nil
}

// readPrivate reads a small regular file and reports whether other users
// may read what was read (a link is judged by what it leads to; Windows
// modes say nothing of other users).
func readPrivate(path string) (b []byte, loose bool, err error) {
	f, err := fsafe.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	b, err = io.ReadAll(io.LimitReader(f, 4096))
	return b, runtime.GOOS != "windows" && fi.Mode().Perm()&fsafe.Shared != 0, err
}

func randomToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("web: making a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// validToken accepts what randomToken makes.
func validToken(t string) bool {
	if len(t) != 2*tokenBytes {
		return false
	}
	_, err := hex.DecodeString(t)
	return err == nil
}

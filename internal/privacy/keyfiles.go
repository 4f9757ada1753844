package privacy

import (
	"path"
	"strings"
)

// keyFileExts are the extensions of files that hold keys or credentials by
// their nature: private keys and certificates with their keys (PEM, PKCS#8,
// PKCS#12), Java and Android keystores, PuTTY keys, KeePass databases.
var keyFileExts = []string{".key", ".pem", ".p12", ".pfx", ".p8", ".pkcs12", ".keystore", ".jks", ".ppk", ".kdbx"}

// keyFileNames are the names of credential files: AWS and other
// credentials, netrc, PostgreSQL's password file, npm's, pip's and git's
// tokens, Apache passwords, Docker's old auth file.
var keyFileNames = []string{"credentials", ".credentials", "credentials.json", ".netrc", "_netrc", ".pgpass",
	".npmrc", ".pypirc", ".git-credentials", ".htpasswd", ".dockercfg"}

// envTemplates are .env files that hold placeholders, not secrets.
var envTemplates = []string{"example", "sample", "template", "dist", "defaults"}

// IsSecretFile reports whether a file holds keys or credentials by its name:
// what is read from, written to or changed in such a file is never stored,
// whatever the patterns find in it. It matches by the last element of the
// path, in any case: the extensions and names above, SSH private keys
// (id_rsa, id_ed25519, any id_* without an extension), and .env files
// (.env, .env.local, prod.env) but for templates (.env.example, .env.sample,
// .env.template, .env.dist, .env.defaults).
func IsSecretFile(p string) bool {
	name := strings.ToLower(path.Base(strings.ReplaceAll(p, `\`, "/")))
	ext := path.Ext(name)
	for _, e := range keyFileExts {
		if ext == e {
			return true
		}
	}
	for _, n := range keyFileNames {
		if name == n {
			return true
		}
	}
	if strings.HasPrefix(name, "id_") && ext == "" {
		return true
	}
	if name == ".env" || strings.HasSuffix(name, ".env") {
		return true
	}
	if rest, ok := strings.CutPrefix(name, ".env."); ok {
		for _, t := range envTemplates {
			if rest == t || strings.HasSuffix(rest, "."+t) {
				return false
			}
		}
		return true
	}
	return false
}

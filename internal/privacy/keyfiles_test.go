package privacy

import "testing"

func TestIsSecretFile(t *testing.T) {
	for p, want := range map[string]bool{
		"deploy/tls/server.key": true, "certs/ca.PEM": true, "a/b/store.p12": true, "win.pfx": true,
		"AuthKey_ABC.p8": true, "release.keystore": true, "app.jks": true, "putty.ppk": true, "db.kdbx": true,
		"/home/u/.ssh/id_rsa": true, "id_ed25519": true, "id_ecdsa_sk": true, `C:\Users\u\.ssh\id_rsa`: true,
		".env": true, "app/.env.local": true, ".env.production": true, "prod.env": true,
		"/home/u/.aws/credentials": true, "credentials.json": true, ".netrc": true, ".pgpass": true,
		".npmrc": true, ".pypirc": true, ".git-credentials": true, ".htpasswd": true,

		"id_rsa.pub": false, "id_test.go": false, "internal/ids.go": false, ".env.example": false,
		".env.local.sample": false, ".env.template": false, "keys.go": false, "README.md": false,
		"monkey.txt": false, "environment.ts": false, "credentials.go": false, "server.key.go": false,
		"": false,
	} {
		if got := IsSecretFile(p); got != want {
			t.Errorf("IsSecretFile(%q) = %v, want %v", p, got, want)
		}
	}
}

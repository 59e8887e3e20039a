"""Made-up secrets in the shape of real ones, with the kind DropSecrets names and the part it must not keep."""

from __future__ import annotations

SECRETS = [
    ("My API key is sk-EXAMPLE-not-a-real-key-000, keep it for later.", "api_key", "sk-EXAMPLE-not-a-real-key-000"),
    ("export OPENAI_API_KEY=sk-proj-abc123DEF456ghi789jkl", "api_key", "abc123DEF456ghi789jkl"),
    ("the AWS key is AKIAIOSFODNN7EXAMPLE", "aws_access_key", "AKIAIOSFODNN7EXAMPLE"),
    ("my password is correct horse battery staple", "password", "horse battery staple"),
    ("the bot token is 835148245:AArvkxhwnKfPxl5JmM3osrFENG6dNyd3wI-", "token", "AArvkxhwnKfPxl5JmM3osrFENG6dNyd3wI-"),
    ("use ghp_EXAMPLEexample0000EXAMPLEexample00 for the CI", "github_token", "ghp_EXAMPLEexample0000EXAMPLE"),
    ("slack bot token xoxb-000000000000-EXAMPLEexample", "slack_token", "xoxb-000000000000-EXAMPLEexample"),
    ("api key: 3f9a2b7c4d5e6f708192a3b4c5d6e7f8", "api_key", "3f9a2b7c4d5e6f708192a3b4c5d6e7f8"),
    ("session_token = 8f14e45fceea167a5a36dedd4bea2543", "token", "8f14e45fceea167a5a36dedd4bea2543"),
    ("Authorization: Bearer abcDEF123456ghiJKL789mno", "bearer_token", "abcDEF123456ghiJKL789mno"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJrdW1hciJ9.c2lnbmF0dXJlLWV4YW1wbGU", "jwt", "eyJhbGciOiJIUzI1NiJ9"),
    ("password: hunter2", "password", "hunter2"),
    ("My password is swordfish.", "password", "swordfish"),
    ("the wifi password is 'GuestNet2024'", "password", "GuestNet2024"),
    ("connect with pwd=Tr0ub4dor&3", "password", "Tr0ub4dor&3"),
    ("DB_PASSWORD=Summer2024!", "password", "Summer2024"),
    ("my bank PIN is 4821", "pin", "4821"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEexampleexample\n-----END RSA PRIVATE KEY-----", "private_key", "MIIE"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "private_key", "OPENSSH"),
    ("postgresql://kumar:s3cretpw@db.local:5432/kioko", "connection_string", "s3cretpw"),
    ("my card is 4111 1111 1111 1111, exp 12/27", "card_number", "1111 1111 1111"),
    ("note: velvet tiger orchard lamp is the passphrase", "password", "orchard lamp"),
]

-- oauth_store keeps ids and lookup keys as their SHA-256 (hex), as src/oauth/adapter.ts `storedKey`
-- computes them: an opaque artifact's id is its secret value (refresh token, code, session).
-- Payloads are encrypted by the service at start-up (`sealOAuthPayloads`: it needs ENCRYPTION_KEY).
UPDATE "oauth_store" SET
  "id" = encode(sha256(convert_to("id", 'UTF8')), 'hex'),
  "grant_id" = CASE WHEN "grant_id" IS NULL THEN NULL ELSE encode(sha256(convert_to("grant_id", 'UTF8')), 'hex') END,
  "user_code" = CASE WHEN "user_code" IS NULL THEN NULL ELSE encode(sha256(convert_to("user_code", 'UTF8')), 'hex') END,
  "uid" = CASE WHEN "uid" IS NULL THEN NULL ELSE encode(sha256(convert_to("uid", 'UTF8')), 'hex') END;

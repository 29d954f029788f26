-- Catalog search (src/catalog/search.ts): each action's weighted search document, stored and
-- GIN-indexed instead of computed three times per row on every query. Kept by triggers (not in
-- the Drizzle schema: no code writes it): from the action and its module on insert/update of the
-- action, and for every action of a module when the module's searched fields change.
ALTER TABLE "module_actions" ADD COLUMN "search_document" tsvector;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "module_action_search_document"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT
    setweight(to_tsvector('english', m.name || ' ' || replace(NEW.name, '_', ' ')), 'A') ||
    setweight(to_tsvector('english', m.title || ' ' || array_to_string(m.tags, ' ')), 'B') ||
    setweight(to_tsvector('english', NEW.description || ' ' || m.description), 'C')
  INTO NEW.search_document
  FROM "modules" m
  WHERE m.name = NEW.module_name;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "module_actions_search_document" BEFORE INSERT OR UPDATE ON "module_actions" FOR EACH ROW EXECUTE FUNCTION "module_action_search_document"();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "module_search_documents"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Any update recomputes the document (the BEFORE trigger above).
  UPDATE "module_actions" SET "search_document" = NULL WHERE "module_name" = NEW.name;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "modules_search_documents" AFTER UPDATE OF "name", "title", "tags", "description" ON "modules" FOR EACH ROW EXECUTE FUNCTION "module_search_documents"();
--> statement-breakpoint
UPDATE "module_actions" SET "search_document" = NULL;
--> statement-breakpoint
CREATE INDEX "module_actions_search_document_idx" ON "module_actions" USING gin ("search_document");

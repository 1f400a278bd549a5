-- Compress the long text columns with lz4 rather than pglz. A chunk's row
-- (a 1.5 kB vector kept in the row, its text and its tsvector) is too wide
-- for the page, so every chunk stored has its text compressed, and its
-- tsvector too (kept in the row, see 0008); a document's canonical text is
-- megabytes. pglz spent about 0.8 s of the 2.4 s that writing the sample
-- corpus's 7,346 chunks took (lz4: 1.65 s; docs/benchmarks.md), and
-- decompressing is faster too, which a full-text search ranking its
-- candidates' tsvectors does for every candidate.
--
-- It applies to values written from now on; values stored before stay
-- pglz and read as before. A server built without lz4 keeps pglz.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings
               WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE chunks ALTER COLUMN text SET COMPRESSION lz4, ALTER COLUMN tsv SET COMPRESSION lz4;
        ALTER TABLE documents ALTER COLUMN text SET COMPRESSION lz4;
    END IF;
END $$;

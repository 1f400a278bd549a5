-- What a filing says of its issuer (registrant name, CIK, trading symbols and
-- the explicit dimension members of its facts), so questions can name an
-- issuer by any of them; and, per fact, where it was read from (an inline-XBRL
-- tag or a table cell of a text or PDF filing) and the row label printed beside
-- it, so a figure can be found by the words the filing uses for it.
ALTER TABLE documents ADD COLUMN entity jsonb NOT NULL DEFAULT '{}';

ALTER TABLE facts ADD COLUMN kind  text NOT NULL DEFAULT 'xbrl';
ALTER TABLE facts ADD COLUMN label text NOT NULL DEFAULT '';

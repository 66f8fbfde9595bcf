DROP FUNCTION IF EXISTS daily_around(date, text, text, integer);
DROP INDEX IF EXISTS results_daily_order;

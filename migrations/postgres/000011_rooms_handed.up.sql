-- A room made on one node for the node its players reach (package
-- cluster, route.go): its maker stores it, stops it before anyone joined,
-- and hands it off, moving its epoch on and noting that epoch here. Every
-- claim moves the epoch on again, so handed_epoch = epoch holds only
-- while no node has claimed the room since: then no node runs it, and the
-- first node a player reaches may claim it, its maker alive or not.
ALTER TABLE rooms ADD COLUMN handed_epoch BIGINT;

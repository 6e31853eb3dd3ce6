"""Questions over `teeoracle export corpus --to tables`, in DuckDB's SQL
(pip install duckdb). Run from the folder that holds `tables/`."""

import duckdb

# Inputs per player per minute (50 ticks a second): INPUT_NEW and
# INPUT_DIFF records, named by the replayed player state at their tick.
duckdb.sql("""
  SELECT name, tick // 3000 AS minute, count(*) AS inputs
  FROM 'tables/teehistorian_records.parquet'
  JOIN 'tables/player_states.parquet' USING (file, tick, cid)
  WHERE kind IN ('input_new', 'input_diff')
    AND file = 'corpus/teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian'
  GROUP BY ALL ORDER BY minute, inputs DESC, name
""").show()

# Who hooked whom: a Character item's hooked_player is another
# character's client id, in the same snapshot.
duckdb.sql("""
  SELECT c.name AS hooker, h.name AS hooked, count(*) AS snapshots
  FROM 'tables/characters.parquet' c
  JOIN 'tables/characters.parquet' h
    ON h.file = c.file AND h.tick = c.tick AND h.cid = c.hooked_player
  WHERE c.file = 'corpus/demo/ddnet-bench/Multeasymap_bench.demo'
  GROUP BY ALL ORDER BY snapshots DESC, hooker LIMIT 5
""").show()

# Which datagrams DDNet 20.1 drops, and why.
duckdb.sql("""
  SELECT ddnet_rule, count(*) AS datagrams, min(file) AS example
  FROM 'tables/datagrams.parquet' WHERE NOT ddnet_accepted
  GROUP BY ALL ORDER BY datagrams DESC, ddnet_rule
""").show(max_width=120)

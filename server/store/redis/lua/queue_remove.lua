-- KEYS: queue ratings, queue since. ARGV: player.
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])

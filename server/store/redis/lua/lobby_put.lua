-- KEYS: lobby hash. ARGV: channel, room, summary, message for subscribers.
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('PUBLISH', ARGV[1], ARGV[4])
return 0

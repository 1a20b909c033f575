-- KEYS: lobby hash. ARGV: channel, room, message.
if redis.call('HDEL', KEYS[1], ARGV[2]) == 1 then
  redis.call('PUBLISH', ARGV[1], ARGV[3])
end
return 0

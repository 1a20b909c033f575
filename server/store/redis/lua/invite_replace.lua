-- KEYS: invite. ARGV: room id it pointed at (gone), new room id.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0

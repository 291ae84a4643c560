import { bullPrefix, outboxMarkers } from './queue-keys';
import { QueueName } from './queues';

/** Redis Cluster's slot of a key (CRC16/XMODEM of its hash tag, or of the whole key without one), as CLUSTER KEYSLOT answers. */
function keySlot(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(hashed)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

describe('queue keys', () => {
  const single = { prefix: 'pm', url: 'redis://127.0.0.1:6379' };
  const cluster = { prefix: 'pm', clusterNodes: [{ host: '127.0.0.1', port: 7000 }] };

  it('keeps the key names of one Redis', () => {
    expect(bullPrefix(single, QueueName.EmailSends)).toBe('pm:bull');
    expect(outboxMarkers(single)).toEqual(['pm:job-outbox:marker']);
  });

  it("puts each queue's keys, and its outbox marker, in one slot of a cluster, and the queues in different slots", () => {
    const slots = Object.values(QueueName).map((queue) => {
      const prefix = bullPrefix(cluster, queue);
      expect(prefix.startsWith('pm:bull:')).toBe(true); // REDIS_PREFIX still starts every key
      const keys = ['wait', 'active', 'delayed', 'meta', 'events', 'marker', 'repeat'].map((type) => `${prefix}:${queue}:${type}`);
      const marker = outboxMarkers(cluster).find((key) => key.includes(`{${queue}}`))!;
      expect(new Set([...keys, marker].map(keySlot)).size).toBe(1);
      return keySlot(keys[0]);
    });
    expect(new Set(slots).size).toBe(Object.values(QueueName).length);
    expect(outboxMarkers(cluster)).toHaveLength(Object.values(QueueName).length);
  });
});

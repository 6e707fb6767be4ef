package io.ambergarden.rollup;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides which rollup shard leases an instance renews, takes and gives back, so that live instances
 * end up with a fair share each. The decisions are applied with lightweight transactions, so two
 * instances acting on the same stale view cannot both win a shard.
 */
public final class LeasePlanner {
  public record Shard(int shard, String owner, long leaseUntil, long doneUntil) {
    boolean live(long now) {
      return owner != null && !owner.isEmpty() && leaseUntil > now;
    }
  }

  public record Plan(List<Shard> renew, List<Shard> acquire, List<Shard> release) {
  }

  private LeasePlanner() {
  }

  public static Plan plan(List<Shard> shards, String me, long now) {
    Set<String> owners = new HashSet<>();
    owners.add(me);
    shards.stream().filter(s -> s.live(now)).forEach(s -> owners.add(s.owner()));
    int fair = (shards.size() + owners.size() - 1) / owners.size();
    List<Shard> mine = shards.stream().filter(s -> s.live(now) && s.owner().equals(me))
        .sorted(Comparator.comparingInt(Shard::shard)).toList();
    List<Shard> renew = new ArrayList<>(mine.subList(0, Math.min(fair, mine.size())));
    List<Shard> release = new ArrayList<>(mine.subList(renew.size(), mine.size()));
    // start the search at an instance-specific offset so instances rarely race for the same free shard
    int offset = Math.floorMod(me.hashCode(), Math.max(1, shards.size()));
    List<Shard> free = shards.stream().filter(s -> !s.live(now))
        .sorted(Comparator.comparingInt(s -> Math.floorMod(s.shard() - offset, shards.size()))).toList();
    List<Shard> acquire = new ArrayList<>(free.subList(0, Math.min(free.size(), Math.max(0, fair - renew.size()))));
    return new Plan(renew, acquire, release);
  }
}

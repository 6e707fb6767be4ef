package io.ambergarden.lease;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Decides which shard leases (of the rollups, of the media sweeper) an instance renews, takes and
 * gives back, so that live instances end up with a fair share each. The decisions are applied with
 * lightweight transactions, so two instances acting on the same stale view cannot both win a shard.
 *
 * <p>The instances an instance knows of are the owners of live leases plus itself. Shares are
 * exact: with n shards and k known owners, sorted by name, the first n mod k get n/k + 1 and the
 * others n/k, so instances with the same view agree on every share and the shares add up to n. An
 * instance without any lease is invisible to the others, so when it has a share but no free shard
 * it takes one shard from the owner furthest over its share; the acquire is conditional on the
 * lease_until it read, so it loses if that owner renewed meanwhile and tries again next scan.
 */
public final class LeasePlanner {
  public record Shard(int shard, String owner, long leaseUntil, long doneUntil) {
    boolean live(long now) {
      return owner != null && !owner.isEmpty() && leaseUntil > now;
    }
  }

  public record Plan(List<Shard> renew, List<Shard> acquire, List<Shard> release) {}

  private LeasePlanner() {}

  public static Plan plan(List<Shard> shards, String me, long now) {
    TreeSet<String> known = new TreeSet<>();
    known.add(me);
    shards.stream().filter(s -> s.live(now)).forEach(s -> known.add(s.owner()));
    List<String> owners = List.copyOf(known);
    int fair = share(shards.size(), owners, me);
    List<Shard> mine = held(shards, me, now);
    List<Shard> renew = new ArrayList<>(mine.subList(0, Math.min(fair, mine.size())));
    List<Shard> release = new ArrayList<>(mine.subList(renew.size(), mine.size()));
    // start the search at an instance-specific offset so instances rarely race for the same free
    // shard
    int offset = Math.floorMod(me.hashCode(), Math.max(1, shards.size()));
    List<Shard> free =
        shards.stream()
            .filter(s -> !s.live(now))
            .sorted(Comparator.comparingInt(s -> Math.floorMod(s.shard() - offset, shards.size())))
            .toList();
    List<Shard> acquire =
        new ArrayList<>(free.subList(0, Math.min(free.size(), Math.max(0, fair - renew.size()))));
    if (mine.isEmpty() && acquire.isEmpty() && fair > 0) {
      // invisible to the others: take one shard from the owner most over its share, the one it
      // would give back
      String victim = null;
      int most = 0;
      for (String o : owners) {
        int over = o.equals(me) ? 0 : held(shards, o, now).size() - share(shards.size(), owners, o);
        if (over > most) {
          most = over;
          victim = o;
        }
      }
      if (victim != null) {
        List<Shard> theirs = held(shards, victim, now);
        acquire.add(theirs.get(theirs.size() - 1));
      }
    }
    return new Plan(renew, acquire, release);
  }

  /** The share of {@code owner} among {@code owners} (sorted by name). */
  private static int share(int shards, List<String> owners, String owner) {
    int rank = owners.indexOf(owner);
    return shards / owners.size() + (rank < shards % owners.size() ? 1 : 0);
  }

  /** The live leases of {@code owner}, by shard number. */
  private static List<Shard> held(List<Shard> shards, String owner, long now) {
    return shards.stream()
        .filter(s -> s.live(now) && s.owner().equals(owner))
        .sorted(Comparator.comparingInt(Shard::shard))
        .toList();
  }
}

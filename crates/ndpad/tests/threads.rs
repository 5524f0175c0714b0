//! `ndpad::threads`: the split every parallel pad (and the numpy front end's
//! statistic and odd-type pads) uses.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use ndpad::threads::{for_bytes, part_len, share, share_map};
use ndpad::{Interrupt, PadOptions, Stopper};

#[test]
fn share_takes_every_part_once() {
    for threads in [0, 1, 2, 3, 8] {
        for n in [0, 1, 2, 5, 17] {
            let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            share(threads, 0..n, |i| {
                seen[i].fetch_add(1, Relaxed);
            });
            let counts: Vec<usize> = seen.iter().map(|s| s.load(Relaxed)).collect();
            assert_eq!(counts, vec![1; n], "threads {threads}, {n} parts");
        }
    }
}

#[test]
fn share_map_keeps_the_parts_order() {
    for threads in [0, 1, 2, 5] {
        let got = share_map(threads, (0..23).map(|i| i * 3), &Stopper::new(None), |v| {
            v + 1
        });
        assert_eq!(got, (0..23).map(|i| i * 3 + 1).collect::<Vec<_>>());
    }
}

#[test]
fn share_map_stops_where_its_stopper_says() {
    // The calling thread asks before each part but its first; once the answer is
    // stop, no thread takes another part and the parts taken are the result.
    for threads in [1, 2] {
        let asked = AtomicUsize::new(0);
        let (asked, stop_at) = (std::sync::Arc::new(asked), 3);
        let count = std::sync::Arc::clone(&asked);
        let interrupt = Interrupt::new(move || count.fetch_add(1, Relaxed) + 1 >= stop_at);
        let stopper = Stopper::new(Some(&interrupt));
        let got = share_map(threads, 0..1000, &stopper, |i| {
            std::thread::sleep(std::time::Duration::from_micros(200));
            i
        });
        assert!(stopper.stopped());
        assert_eq!(asked.load(Relaxed), stop_at, "threads {threads}");
        assert!(
            got.len() < 100 && got.windows(2).all(|w| w[0] < w[1]),
            "{got:?}"
        );
        if threads == 1 {
            assert_eq!(got, vec![0, 1, 2]);
        }
    }
}

#[test]
fn share_from_inside_pool_threads() {
    // Called from rayon's own threads (a caller's parallel loop): every part done, no
    // thread left waiting for another.
    let total = AtomicUsize::new(0);
    rayon::scope(|s| {
        for _ in 0..4 {
            s.spawn(|_| {
                share(2, 0..8, |i| {
                    total.fetch_add(i, Relaxed);
                })
            });
        }
    });
    assert_eq!(total.load(Relaxed), 4 * 28);
}

#[test]
fn a_panicking_part_reaches_the_caller() {
    let r = std::panic::catch_unwind(|| {
        share(2, 0..8, |i| {
            assert_ne!(i, 5, "part 5");
        })
    });
    assert!(r.is_err());
    // The threads are usable afterwards.
    assert_eq!(
        share_map(2, 0..4, &Stopper::new(None), |i| i),
        vec![0, 1, 2, 3]
    );
}

#[test]
fn part_len_gives_four_parts_per_thread() {
    assert_eq!(part_len(2, 100), 13);
    assert_eq!(part_len(1, 3), 1);
    assert_eq!(part_len(4, 0), 1);
}

#[test]
fn threads_follow_the_output_size() {
    let mib = 1 << 20;
    let opts = PadOptions {
        threads: 8,
        parallel_threshold: mib,
        ..PadOptions::default()
    };
    assert_eq!(for_bytes(&opts, 0), 1);
    assert_eq!(for_bytes(&opts, mib), 1);
    assert_eq!(for_bytes(&opts, 2 * mib + 5), 2);
    assert_eq!(for_bytes(&opts, 100 * mib), 8);
    let every = PadOptions {
        parallel_threshold: 0,
        ..opts
    };
    assert_eq!(for_bytes(&every, 1), 8);
}

#[test]
fn lingering_pool_threads_leave() {
    // After a parallel share, its helpers spin for a while (`tune::LINGER`, 200 us)
    // and then go back to rayon: a job that needs every pool thread runs soon after.
    let threads = rayon::current_num_threads().max(2);
    share(threads, 0..4 * threads, |_| {});
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        rayon::broadcast(|_| ());
        let _ = tx.send(());
    });
    assert!(
        rx.recv_timeout(std::time::Duration::from_secs(10)).is_ok(),
        "rayon's threads still busy 10 s after a share"
    );
}

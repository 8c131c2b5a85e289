//! Generate the example data shipped in `examples/data/` (deterministic: same bytes on
//! every run). Run through `scripts/gen-example-data.sh`.
//!
//! `people.parquet`: 10 000 rows of
//! - `name`: "First Last", ASCII and multi-byte UTF-8 (accents, CJK, emoji), ~2 % null;
//! - `visibility`: "public" or "private";
//! - `age`: int32, ~5 % null;
//! - `visits`: list<int32> of 0–8 day numbers, ~3 % null lists;
//! - `is_public`: bool, whether the visibility is "public" (a mask for
//!   `strings copy-if-else`).

use std::sync::Arc;

use ragged::io::write_table;
use ragged::{Column, ListColumn, PrimitiveColumn, ScalarBuffer, StringColumn};

const FIRST: &[&str] = &[
    "Ada",
    "Alan",
    "Grace",
    "Edsger",
    "Barbara",
    "Donald",
    "Frances",
    "Ken",
    "Margaret",
    "Niklaus",
    "José",
    "Zoë",
    "Søren",
    "Łukasz",
    "Chloé",
    "Jürgen",
    "美咲",
    "Ольга",
    "Αλέξης",
    "😀Sunny",
];
const LAST: &[&str] = &[
    "Lovelace",
    "Turing",
    "Hopper",
    "Dijkstra",
    "Liskov",
    "Knuth",
    "Allen",
    "Thompson",
    "Hamilton",
    "Wirth",
    "Núñez",
    "Brontë",
    "Kierkegaard",
    "Wałęsa",
    "Dubois",
    "Müller",
    "佐藤",
    "Иванова",
    "Παπαδόπουλος",
    "Smith",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "examples/data".into());
    let rows = 10_000;
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let mut names = Vec::with_capacity(rows);
    let mut visibility = Vec::with_capacity(rows);
    let mut ages = Vec::with_capacity(rows);
    let mut offsets = vec![0i32];
    let mut visits = Vec::new();
    let mut lists_valid = Vec::with_capacity(rows);
    for _ in 0..rows {
        let name = if rng.below(50) == 0 {
            None
        } else {
            // Mostly ASCII names, some multi-byte.
            let pick = |rng: &mut Rng, words: &[&'static str]| {
                let ascii = rng.below(4) != 0;
                let range = if ascii { 10 } else { words.len() as u64 };
                words[rng.below(range) as usize]
            };
            let first = pick(&mut rng, FIRST);
            let last = pick(&mut rng, LAST);
            Some(format!("{first} {last}"))
        };
        names.push(name);
        visibility.push(Some(if rng.below(2) == 0 {
            "public"
        } else {
            "private"
        }));
        ages.push((rng.below(20) != 0).then(|| 18 + rng.below(70) as i32));
        let valid = rng.below(33) != 0;
        if valid {
            for _ in 0..rng.below(9) {
                visits.push(rng.below(365) as i32);
            }
        }
        lists_valid.push(valid);
        offsets.push(visits.len() as i32);
    }
    let child = Column::Int32(PrimitiveColumn::from_vec(visits));
    let validity = ragged::NullBuffer::from(lists_valid);
    let lists =
        ListColumn::try_new_shared(ScalarBuffer::from(offsets), Arc::new(child), Some(validity))?;
    let is_public: Vec<Option<bool>> = visibility
        .iter()
        .map(|v| Some(*v == Some("public")))
        .collect();
    let columns = vec![
        (
            "name".to_string(),
            Column::Utf8(StringColumn::from_options(names)),
        ),
        (
            "visibility".to_string(),
            Column::Utf8(StringColumn::from_options(visibility)),
        ),
        (
            "age".to_string(),
            Column::Int32(PrimitiveColumn::from_options(ages)),
        ),
        ("visits".to_string(), Column::List(lists)),
        (
            "is_public".to_string(),
            Column::Boolean(ragged::BooleanColumn::from_options(is_public)),
        ),
    ];
    std::fs::create_dir_all(&dir)?;
    let path = std::path::Path::new(&dir).join("people.parquet");
    write_table(&path, None, &columns)?;
    println!("wrote {} ({rows} rows)", path.display());
    Ok(())
}

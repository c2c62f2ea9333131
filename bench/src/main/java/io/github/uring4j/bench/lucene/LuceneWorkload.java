package io.github.uring4j.bench.lucene;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.CheckIndex;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.FuzzyQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * An unchanged Lucene application, run by {@link LuceneCommand} (and the {@code lucenecheck} module's test) in child
 * JVMs with and without {@code UringFileSystemProvider}: indexes a corpus generated from a seed (updates and deletes included, two
 * commits), checks the index, reopens it and runs a fixed set of queries, once with {@link NIOFSDirectory} and once
 * with {@link MMapDirectory}. It prints every result (hit counts, top documents with their scores and stored fields)
 * as {@code RESULT} lines, which must be identical whatever the provider, and its timings as {@code TIMING} lines.
 * <p>
 * Arguments: the directory to index into, the number of documents, the seed, the number of query rounds timed
 * (after half as many untimed), and optionally the documents of an untimed warm-up run first (default none) and the
 * directories to use ({@code nio}, {@code mmap}, or both separated by a comma: the default).
 * Indexing is timed from opening the writer to its last commit.
 */
public final class LuceneWorkload {
    private static final String[] SYLLABLES = {"ka", "ri", "mo", "te", "su", "na", "lo", "pe", "vi", "da", "zu",
        "go", "ha", "ne", "bo", "si", "ur", "ing"};
    private static final String[] CATEGORIES = new String[20];

    static {
        for (int i = 0; i < CATEGORIES.length; i++) {
            CATEGORIES[i] = "cat" + i;
        }
    }

    private LuceneWorkload() {
    }

    /**
     * Runs the workload.
     *
     * @param args the directory, the number of documents, the seed, the number of query rounds[, warm-up
     *        documents[, directories]]
     * @throws IOException if Lucene fails
     */
    public static void main(String[] args) throws IOException {
        Path base = Path.of(args[0]);
        int docs = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int warmUp = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        List<String> kinds = List.of(args.length > 5 ? args[5].split(",") : new String[] {"nio", "mmap"});
        if (kinds.isEmpty() || !List.of("nio", "mmap").containsAll(kinds)) {
            throw new IllegalArgumentException("directories: nio, mmap or nio,mmap, not " + args[5]);
        }
        System.out.println("PROVIDER " + FileSystems.getDefault().provider().getClass().getName());
        if (warmUp > 0) {
            // untimed, unprinted: the same work on a smaller corpus of another seed, so that the JIT has compiled
            // what the timed runs call (a fresh JVM spent most of the first few seconds of indexing compiling)
            for (String kind : kinds) {
                Path dir = Files.createDirectories(base.resolve("warm-up-" + kind));
                try (Directory d = kind.equals("nio") ? new NIOFSDirectory(dir) : new MMapDirectory(dir)) {
                    run(kind, d, dir, warmUp, seed + 1, 2, false);
                }
            }
        }
        for (String kind : kinds) {
            Path dir = Files.createDirectories(base.resolve(kind));
            try (Directory d = kind.equals("nio") ? new NIOFSDirectory(dir) : new MMapDirectory(dir)) {
                run(kind, d, dir, docs, seed, rounds, true);
            }
        }
        if (FileSystems.getDefault().provider() instanceof io.github.uring4j.nio.UringFileSystemProvider) {
            System.out.println("STATS " + io.github.uring4j.nio.UringFiles.statistics());
        }
    }

    static List<String> vocabulary(Random rnd, int size) {
        Set<String> words = new LinkedHashSet<>();
        while (words.size() < size) {
            StringBuilder w = new StringBuilder();
            int n = 2 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                w.append(SYLLABLES[rnd.nextInt(SYLLABLES.length)]);
            }
            words.add(w.toString());
        }
        return new ArrayList<>(words);
    }

    /** A word, the frequent ones far more often (roughly Zipf). */
    static String word(Random rnd, List<String> vocab) {
        return vocab.get((int) (vocab.size() * Math.pow(rnd.nextDouble(), 2.5)));
    }

    static String text(Random rnd, List<String> vocab, int min, int max) {
        int n = min + rnd.nextInt(max - min + 1);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                s.append(i % 17 == 0 ? ". " : " ");
            }
            s.append(word(rnd, vocab));
        }
        return s.toString();
    }

    static Document document(Random rnd, List<String> vocab, int id) {
        Document doc = new Document();
        doc.add(new StringField("id", String.format("doc-%05d", id), Field.Store.YES));
        doc.add(new TextField("title", text(rnd, vocab, 3, 8), Field.Store.YES));
        doc.add(new TextField("body", text(rnd, vocab, 40, 200), Field.Store.YES));
        int num = rnd.nextInt(100_000);
        doc.add(new IntPoint("num", num));
        doc.add(new StoredField("num", num));
        doc.add(new NumericDocValuesField("num", num));
        String category = CATEGORIES[rnd.nextInt(CATEGORIES.length)];
        doc.add(new StringField("category", category, Field.Store.YES));
        doc.add(new SortedDocValuesField("category", new BytesRef(category)));
        return doc;
    }

    static IndexWriterConfig config() {
        IndexWriterConfig c = new IndexWriterConfig(new StandardAnalyzer());
        // Deterministic segments, so that document ids are the same in every run: one indexing thread, flushes by
        // document count, merges of adjacent segments, in this thread.
        c.setMergeScheduler(new SerialMergeScheduler());
        LogDocMergePolicy mp = new LogDocMergePolicy();
        mp.setMergeFactor(5);
        mp.setMinMergeDocs(200);
        c.setMergePolicy(mp);
        c.setMaxBufferedDocs(400);
        c.setRAMBufferSizeMB(IndexWriterConfig.DISABLE_AUTO_FLUSH);
        return c;
    }

    static void run(String kind, Directory d, Path dir, int docs, long seed, int rounds, boolean print)
            throws IOException {
        java.io.PrintStream out = print ? System.out : new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
        Random rnd = new Random(seed);
        List<String> vocab = vocabulary(rnd, 4000);
        long start = System.nanoTime();
        try (IndexWriter w = new IndexWriter(d, config())) {
            for (int i = 0; i < docs; i++) {
                w.addDocument(document(rnd, vocab, i));
            }
            w.commit();
            for (int i = 0; i < docs / 20; i++) {
                int id = rnd.nextInt(docs);
                w.updateDocument(new Term("id", String.format("doc-%05d", id)), document(rnd, vocab, id));
            }
            for (int i = 0; i < docs / 50; i++) {
                w.deleteDocuments(new Term("id", String.format("doc-%05d", rnd.nextInt(docs))));
            }
            for (int i = docs; i < docs + docs / 10; i++) {
                w.addDocument(document(rnd, vocab, i));
            }
            w.commit();
        }
        long indexNanos = System.nanoTime() - start;
        int indexed = docs + docs / 20 + docs / 10; // added, updated, added after the first commit
        String channel;
        try (FileChannel ch = FileChannel.open(dir.resolve(d.listAll()[0]), StandardOpenOption.READ)) {
            channel = ch.getClass().getName();
        }
        out.println(kind + " DIRECTORY " + d.getClass().getSimpleName() + " CHANNEL " + channel);
        try (CheckIndex check = new CheckIndex(d)) {
            CheckIndex.Status status = check.checkIndex();
            out.println(kind + " RESULT checkindex clean=" + status.clean + " segments="
                    + status.numSegments);
        }
        try (DirectoryReader reader = DirectoryReader.open(d)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            out.println(kind + " RESULT reader maxDoc=" + reader.maxDoc() + " numDocs=" + reader.numDocs()
                    + " leaves=" + reader.leaves().size());
            List<Query> queries = queries(vocab);
            for (int i = 0; i < queries.size(); i++) {
                out.println(kind + " RESULT q" + i + " " + describe(searcher, queries.get(i)));
            }
            Sort byNum = new Sort(new SortField("num", SortField.Type.INT, true));
            TopDocs sorted = searcher.search(new TermQuery(new Term("category", "cat3")), 10, byNum);
            out.println(kind + " RESULT sorted " + top(searcher, sorted));
            long hits = 0;
            for (int r = 0; r < rounds / 2; r++) { // warm-up, not timed
                for (Query q : queries) {
                    hits += searcher.search(q, 10).scoreDocs.length;
                }
            }
            long qstart = System.nanoTime();
            for (int r = 0; r < rounds; r++) {
                for (Query q : queries) {
                    hits += searcher.search(q, 10).scoreDocs.length;
                }
            }
            double seconds = (System.nanoTime() - qstart) / 1e9;
            out.printf(Locale.ROOT, "%s TIMING docs=%d indexed=%d index_ns=%d queries=%d query_ns=%d (hits %d)%n",
                    kind, docs, indexed, indexNanos, rounds * queries.size(), (long) (seconds * 1e9), hits);
        }
    }

    static List<Query> queries(List<String> vocab) {
        List<Query> q = new ArrayList<>();
        for (int i : new int[] {0, 1, 5, 40, 300, 2000, 3999}) {
            q.add(new TermQuery(new Term("body", vocab.get(i))));
        }
        q.add(new TermQuery(new Term("title", vocab.get(2))));
        q.add(new BooleanQuery.Builder()
                .add(new TermQuery(new Term("body", vocab.get(3))), BooleanClause.Occur.MUST)
                .add(new TermQuery(new Term("body", vocab.get(10))), BooleanClause.Occur.SHOULD)
                .add(new BoostQuery(new TermQuery(new Term("title", vocab.get(4))), 3f), BooleanClause.Occur.SHOULD)
                .add(new TermQuery(new Term("body", vocab.get(7))), BooleanClause.Occur.MUST_NOT)
                .build());
        q.add(new BooleanQuery.Builder()
                .add(new TermQuery(new Term("body", vocab.get(20))), BooleanClause.Occur.SHOULD)
                .add(new TermQuery(new Term("body", vocab.get(21))), BooleanClause.Occur.SHOULD)
                .add(new TermQuery(new Term("body", vocab.get(22))), BooleanClause.Occur.SHOULD)
                .setMinimumNumberShouldMatch(2)
                .build());
        q.add(new PhraseQuery("body", vocab.get(0), vocab.get(1)));
        q.add(new PhraseQuery(2, "body", vocab.get(2), vocab.get(6)));
        q.add(IntPoint.newRangeQuery("num", 20_000, 20_999));
        q.add(new BooleanQuery.Builder()
                .add(IntPoint.newRangeQuery("num", 0, 49_999), BooleanClause.Occur.FILTER)
                .add(new TermQuery(new Term("body", vocab.get(8))), BooleanClause.Occur.MUST)
                .build());
        q.add(new PrefixQuery(new Term("body", "kamo")));
        q.add(new WildcardQuery(new Term("body", "ri*ng")));
        q.add(new FuzzyQuery(new Term("body", vocab.get(50)), 1));
        q.add(new TermQuery(new Term("category", "cat7")));
        q.add(MatchAllDocsQuery.INSTANCE);
        return q;
    }

    static String describe(IndexSearcher searcher, Query q) throws IOException {
        TopDocs top = searcher.search(q, 10);
        return "count=" + searcher.count(q) + " total=" + top.totalHits.value() + top.totalHits.relation()
                + " " + top(searcher, top);
    }

    /** The top documents: id, score (and its bits), sort values, stored fields. */
    static String top(IndexSearcher searcher, TopDocs top) throws IOException {
        StoredFields stored = searcher.storedFields();
        StringBuilder s = new StringBuilder("top=[");
        for (ScoreDoc sd : top.scoreDocs) {
            Document doc = stored.document(sd.doc);
            s.append(sd.doc).append(':').append(sd.score).append('/')
                    .append(Integer.toHexString(Float.floatToIntBits(sd.score)));
            if (sd instanceof FieldDoc fd) {
                s.append(":sort=").append(java.util.Arrays.toString(fd.fields));
            }
            s.append(':').append(doc.get("id")).append(':').append(doc.get("num")).append(':')
                    .append(doc.get("category")).append(':').append(doc.get("title").hashCode()).append(':')
                    .append(doc.get("body").hashCode()).append(' ');
        }
        return s.append(']').toString();
    }
}

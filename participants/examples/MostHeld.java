// An example Go Fish bot in Java with the standard library only: copy it and make it yours.
//
//     java participants/examples/MostHeld.java        (Java 11+ runs a source file as it is)
//
// In a config:  command = ["java", "participants/examples/MostHeld.java"]
// (compiled, `javac -d out MostHeld.java`, it is `["java", "-cp", "out", "MostHeld"]`: in the
// sandbox the program sees only its own files, so a class path outside them needs the
// participant's `readOnly`, and `arena check --read-only out` (docs/sandbox.md).)
//
// It remembers who asked for what (a seat that asks for a rank holds it; a seat that hands a
// rank over or says go fish has none of it), asks a seat known to hold one of its ranks, and
// otherwise asks for the rank it holds most of, from the seat with the most cards. No
// randomness, so it is deterministic. The protocol is in docs/protocol.md.
//
// Every message wants exactly one line back, `null` for those that only inform (hand-update,
// go-fish-result, match-end...) and for any type it does not know; `System.out.println` then
// flush, since stdout into a pipe is not written out line by line.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

public class MostHeld {
    // ---- a minimal JSON reader: enough for the arena's messages --------------------------
    // Objects are Maps, arrays Lists, numbers Doubles, strings Strings, null is null.

    private static final class Reader {
        private final String text;
        private int at;

        Reader(String text) {
            this.text = text;
        }

        private void space() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
        }

        private boolean eat(char c) {
            space();
            if (at < text.length() && text.charAt(at) == c) {
                at++;
                return true;
            }
            return false;
        }

        Object value() {
            space();
            char c = text.charAt(at);
            if (c == '{') {
                at++;
                Map<String, Object> members = new LinkedHashMap<>();
                while (!eat('}')) {
                    String key = (String) value();
                    eat(':');
                    members.put(key, value());
                    eat(',');
                }
                return members;
            }
            if (c == '[') {
                at++;
                List<Object> items = new ArrayList<>();
                while (!eat(']')) {
                    items.add(value());
                    eat(',');
                }
                return items;
            }
            if (c == '"') {
                at++;
                StringBuilder out = new StringBuilder();
                while (text.charAt(at) != '"') {
                    char d = text.charAt(at++);
                    if (d == '\\') {
                        char e = text.charAt(at++);
                        switch (e) {
                            case 'n': d = '\n'; break;
                            case 't': d = '\t'; break;
                            case 'r': d = '\r'; break;
                            case 'b': d = '\b'; break;
                            case 'f': d = '\f'; break;
                            case 'u': d = (char) Integer.parseInt(text.substring(at, at + 4), 16); at += 4; break;
                            default: d = e; // \" \\ \/
                        }
                    }
                    out.append(d);
                }
                at++;
                return out.toString();
            }
            for (String word : new String[] {"true", "false", "null"}) {
                if (text.startsWith(word, at)) {
                    at += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word.equals("true"));
                }
            }
            int start = at;
            while (at < text.length() && "+-.eE0123456789".indexOf(text.charAt(at)) >= 0) at++;
            return Double.valueOf(text.substring(start, at));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : new HashMap<>();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value) {
        return value instanceof List ? (List<Object>) value : new ArrayList<>();
    }

    private static int number(Object value, int otherwise) {
        return value instanceof Double ? ((Double) value).intValue() : otherwise;
    }

    // ---- the bot -------------------------------------------------------------------------

    private int seat = 0;
    private final List<int[]> hand = new ArrayList<>(); // {card id, rank}, the whole hand as last sent
    private final Map<Integer, Set<Integer>> holds = new HashMap<>(); // seat -> ranks it holds

    /** The reply to one message, as a line of JSON. */
    String reply(Map<String, Object> message) {
        if (message.get("hand") instanceof List) { // every message with a hand carries all of it
            hand.clear();
            for (Object card : list(message.get("hand"))) {
                Map<String, Object> c = object(card);
                hand.add(new int[] {number(c.get("id"), -1), number(c.get("rank"), -1)});
            }
        }
        String type = String.valueOf(message.get("type"));
        switch (type) {
            case "init":
                holds.clear(); // a new match: forget the last one
                seat = number(message.get("seat"), 0);
                break;
            case "hand-update": {
                int rank = number(object(message.get("card")).get("rank"), -1);
                holds.computeIfAbsent(number(message.get("askingPlayer"), -1), s -> new HashSet<>()).add(rank);
                holds.computeIfAbsent(number(message.get("playerAsked"), -1), s -> new HashSet<>()).remove(rank);
                break;
            }
            case "ask":
                return ask(list(message.get("opponentsHandSizes")));
            case "go-fish":
            case "pick-up":
                return "0"; // the pond is face down: any index is as good as another
            default:
                break;
        }
        return "null"; // informational and unknown messages still need a reply
    }

    private String ask(List<Object> sizes) {
        TreeMap<Integer, Integer> mine = new TreeMap<>(); // rank -> cards of it, lowest rank first
        for (int[] card : hand) mine.merge(card[1], 1, Integer::sum);
        List<Integer> others = new ArrayList<>();
        List<Integer> holding = new ArrayList<>();
        for (int s = 0; s < sizes.size(); s++) {
            if (s == seat || sizes.get(s) == null) continue;
            others.add(s);
            if (number(sizes.get(s), 0) > 0) holding.add(s);
        }
        if (holding.isEmpty()) holding = others;
        for (int s : holding) {
            for (int rank : mine.keySet()) {
                if (holds.getOrDefault(s, Set.of()).contains(rank)) return askFor(s, rank);
            }
        }
        int rank = -1;
        for (Map.Entry<Integer, Integer> held : mine.entrySet()) {
            if (rank < 0 || held.getValue() > mine.get(rank)) rank = held.getKey(); // lowest most held
        }
        int target = holding.get(0);
        for (int s : holding) {
            if (number(sizes.get(s), 0) > number(sizes.get(target), 0)) target = s;
        }
        return askFor(target, rank);
    }

    private String askFor(int target, int rank) {
        // Asking uses a card id from our hand, never the rank itself.
        int id = -1;
        for (int[] card : hand) {
            if (card[1] == rank) {
                id = card[0];
                break;
            }
        }
        return "{\"player\": " + target + ", \"cardId\": " + id + "}";
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        MostHeld bot = new MostHeld();
        String line;
        while ((line = in.readLine()) != null) { // one line at a time, never to the end of input
            if (line.isBlank()) continue;
            Map<String, Object> message = object(new Reader(line).value());
            out.println(bot.reply(message));
            out.flush(); // one line per message, flushed
            if ("match-end".equals(message.get("type"))) break;
        }
    }
}

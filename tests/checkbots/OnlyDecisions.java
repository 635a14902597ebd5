// Broken: answers init, then only the messages that want a decision; nothing to those that
// only inform (starting-hand, hand-update...), so its next reply answers the wrong message.
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class OnlyDecisions {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\"type\":\"init\"")) {
                System.out.println("null");
            } else if (line.contains("\"type\":\"go-fish\"") || line.contains("\"type\":\"pick-up\"")) {
                System.out.println("0");
            }
            System.out.flush();
        }
    }
}

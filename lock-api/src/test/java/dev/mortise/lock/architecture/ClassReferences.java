package dev.mortise.lock.architecture;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The classes one compiled class refers to, read from its constant pool: every class entry
 * (what the code calls, creates, casts to, catches) and every type in a descriptor or generic
 * signature (fields, parameters, return types, annotations, type arguments). This is what the
 * class needs at run time, whether the source imported it or named it in full; an import used
 * only by Javadoc leaves nothing behind and is not seen. Compile-time constants are inlined by
 * javac and not seen either. It also tells whether a class file's class is public.
 *
 * <p>Stateless; thread-safe.
 */
final class ClassReferences {

    private static final int MAGIC = 0xCAFEBABE;
    private static final int ACC_PUBLIC = 0x0001;

    private ClassReferences() {
    }

    /**
     * The binary names (dots, {@code $} for nested classes) of the classes {@code classFile}
     * refers to whose names start with {@code namespace} (e.g. {@code "dev.mortise."}).
     *
     * @throws IOException if it cannot be read or is not a class file
     */
    static Set<String> of(InputStream classFile, String namespace) throws IOException {
        ConstantPool pool = ConstantPool.read(new DataInputStream(classFile));
        String[] utf8 = pool.utf8();
        List<Integer> classNames = pool.classNames();
        String prefix = namespace.replace('.', '/');
        Pattern described = Pattern.compile("L(" + Pattern.quote(prefix) + "[\\w/$]*)[;<]");
        Set<String> found = new HashSet<>();
        for (int index : classNames) {
            String name = utf8[index];
            if (name != null && name.startsWith(prefix)) {
                found.add(name.replace('/', '.'));
            }
        }
        for (String text : utf8) {
            if (text == null || !text.contains(prefix)) {
                continue;
            }
            Matcher m = described.matcher(text);
            while (m.find()) {
                found.add(m.group(1).replace('/', '.'));
            }
        }
        return found;
    }

    /**
     * Whether {@code classFile} declares a public class or interface (its {@code access_flags}).
     *
     * @throws IOException if it cannot be read or is not a class file
     */
    static boolean isPublic(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        ConstantPool.read(in);
        return (in.readUnsignedShort() & ACC_PUBLIC) != 0;
    }

    /** A class file's constant pool: its text entries by index and the indexes of its class names. */
    private record ConstantPool(String[] utf8, List<Integer> classNames) {

        /** Reads from the start of a class file up to its {@code access_flags}. */
        static ConstantPool read(DataInputStream in) throws IOException {
            if (in.readInt() != MAGIC) {
                throw new IOException("not a class file (bad magic number)");
            }
            in.readUnsignedShort(); // minor version
            in.readUnsignedShort(); // major version
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            List<Integer> classNames = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 7 -> classNames.add(in.readUnsignedShort());
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 15 -> in.skipNBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
                    case 5, 6 -> {
                        in.skipNBytes(8);
                        i++; // a long or double takes two entries
                    }
                    default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
                }
            }
            return new ConstantPool(utf8, classNames);
        }
    }

    /** The top-level class of a binary name: {@code a.b.Outer$Inner} is {@code a.b.Outer}. */
    static String topLevel(String binaryName) {
        int dollar = binaryName.indexOf('$', binaryName.lastIndexOf('.') + 1);
        return dollar < 0 ? binaryName : binaryName.substring(0, dollar);
    }

    /** The package of a binary name, {@code ""} for the unnamed package. */
    static String packageOf(String binaryName) {
        int dot = binaryName.lastIndexOf('.');
        return dot < 0 ? "" : binaryName.substring(0, dot);
    }
}

package io.github.uring4j.modulecheck;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.ring.IoUring;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleReader;
import java.lang.module.ResolvedModule;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every public or protected member of every exported type names only exported types (or the JDK's): a signature
 * that leaks an internal type would compile inside the library and fail every module-path user.
 */
class ExportedApiTest {

    @Test
    void exportedSignaturesNameNoInternalType() throws Exception {
        Module core = IoUring.class.getModule();
        Set<String> exported = core.getDescriptor().exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
        List<String> leaks = new ArrayList<>();
        int checked = 0;
        for (String className : classesOf(core)) {
            Class<?> c = Class.forName(className, false, core.getClassLoader());
            if (!exported.contains(c.getPackageName()) || !isVisible(c)) {
                continue;
            }
            checked++;
            String where = c.getName();
            check(c.getGenericSuperclass(), exported, where + " extends", leaks);
            for (Type t : c.getGenericInterfaces()) {
                check(t, exported, where + " implements", leaks);
            }
            for (Field f : c.getDeclaredFields()) {
                if (isVisible(f.getModifiers())) {
                    check(f.getGenericType(), exported, where + "." + f.getName(), leaks);
                }
            }
            List<Executable> members = new ArrayList<>(List.of(c.getDeclaredMethods()));
            for (Constructor<?> k : c.getDeclaredConstructors()) {
                members.add(k);
            }
            for (Executable m : members) {
                if (!isVisible(m.getModifiers()) || m.isSynthetic()) {
                    continue;
                }
                String name = where + "." + m.getName();
                if (m instanceof Method method) {
                    check(method.getGenericReturnType(), exported, name + " returns", leaks);
                }
                for (Type p : m.getGenericParameterTypes()) {
                    check(p, exported, name + " takes", leaks);
                }
                for (Type x : m.getGenericExceptionTypes()) {
                    check(x, exported, name + " throws", leaks);
                }
            }
        }
        assertTrue(checked > 30, "exported types checked: " + checked);
        assertTrue(leaks.isEmpty(), "exported API naming internal types:\n" + String.join("\n", leaks));
    }

    /** Public, or a protected member class, all the way out. */
    private static boolean isVisible(Class<?> c) {
        for (Class<?> x = c; x != null; x = x.getDeclaringClass()) {
            int m = x.getModifiers();
            if (!Modifier.isPublic(m) && !(x.getDeclaringClass() != null && Modifier.isProtected(m))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isVisible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void check(Type t, Set<String> exported, String where, List<String> leaks) {
        if (t == null) {
            return;
        }
        if (t instanceof Class<?> c) {
            while (c.isArray()) {
                c = c.getComponentType();
            }
            if (c.isPrimitive()) {
                return;
            }
            String pkg = c.getPackageName();
            if (c.getModule() == IoUring.class.getModule() && !exported.contains(pkg)) {
                leaks.add(where + " " + c.getName());
            }
            return;
        }
        if (t instanceof ParameterizedType p) {
            check(p.getRawType(), exported, where, leaks);
            for (Type a : p.getActualTypeArguments()) {
                check(a, exported, where, leaks);
            }
        } else if (t instanceof GenericArrayType g) {
            check(g.getGenericComponentType(), exported, where, leaks);
        } else if (t instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) {
                check(b, exported, where, leaks);
            }
            for (Type b : w.getLowerBounds()) {
                check(b, exported, where, leaks);
            }
        } else if (t instanceof TypeVariable<?> v) {
            for (Type b : v.getBounds()) {
                if (b != Object.class) {
                    check(b, exported, where, leaks);
                }
            }
        }
    }

    /** Every class file of {@code module}, as a binary class name. */
    private static Set<String> classesOf(Module module) throws IOException {
        ResolvedModule resolved = module.getLayer().configuration().findModule(module.getName()).orElseThrow();
        Set<String> names = new TreeSet<>();
        try (ModuleReader reader = resolved.reference().open()) {
            reader.list().filter(n -> n.endsWith(".class") && !n.equals("module-info.class"))
                    .forEach(n -> names.add(n.substring(0, n.length() - ".class".length()).replace('/', '.')));
        }
        return names;
    }
}

package io.github.uring4j.nettycheck;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.CRC32C;

/**
 * An unchanged program: a Netty server on the native epoll transport sends each file of a directory as a
 * {@code DefaultFileRegion} of the {@code FileChannel} that {@code FileChannel.open} gives (the kernel's
 * {@code sendfile}, whose descriptor Netty's native code takes from the JDK channel's field), and a plain socket reads
 * what arrives. Prints {@code PROVIDER}, {@code CHANNEL} (the class of the channels opened) and, per file,
 * {@code SENT name size crc} with what was received and whether it is the file's. Standard input should be a file
 * of other bytes: a descriptor read from the wrong place was 0.
 */
public final class NettySendFile {
    private NettySendFile() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        System.out.println("PROVIDER " + FileSystems.getDefault().provider().getClass().getName());
        if (!Epoll.isAvailable()) {
            System.out.println("NO-EPOLL " + Epoll.unavailabilityCause());
            return;
        }
        List<Path> files;
        try (var s = Files.list(dir)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        ConcurrentLinkedQueue<Path> next = new ConcurrentLinkedQueue<>(files);
        ConcurrentLinkedQueue<String> channels = new ConcurrentLinkedQueue<>();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                    .childHandler(new SendNext() {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) throws Exception {
                            Path f = next.poll();
                            FileChannel ch = FileChannel.open(f, StandardOpenOption.READ);
                            channels.add(ch.getClass().getName());
                            ctx.writeAndFlush(new DefaultFileRegion(ch, 0, ch.size())).addListener(done -> {
                                if (!done.isSuccess()) {
                                    System.out.println("FAILED " + f.getFileName() + " " + done.cause());
                                }
                                ctx.close();
                            });
                        }
                    }).bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            for (Path f : files) {
                byte[] got;
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                        InputStream in = s.getInputStream()) {
                    s.setSoTimeout(30_000); // a send that never ends fails the run instead of holding it
                    got = in.readAllBytes();
                }
                byte[] want = Files.readAllBytes(f);
                System.out.println("SENT " + f.getFileName() + " " + got.length + " " + crc(got) + " "
                        + (Arrays.equals(got, want) ? "the file's bytes" : "NOT the file's bytes (" + want.length
                                + " with crc " + crc(want) + "; received begins "
                                + new String(Arrays.copyOf(got, Math.min(24, got.length)),
                                        java.nio.charset.StandardCharsets.ISO_8859_1) + ")"));
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
        System.out.println("CHANNEL " + String.join(" ", new java.util.TreeSet<>(channels)));
    }

    /** One handler for every connection (Netty refuses to add an unshared handler to a second pipeline). */
    @io.netty.channel.ChannelHandler.Sharable
    private static class SendNext extends ChannelInboundHandlerAdapter {
    }

    private static String crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return Long.toHexString(c.getValue());
    }
}
